"""ONNX OptionalHasElement: true for an optional holding a value and (version 18 on) for a tensor
or sequence; false for an empty optional and (version 18 on) for an absent input."""
import numpy as np

from opconform import containers


def run(spec, inputs, attributes, policies):
    x = inputs[0] if inputs else None
    has = x is not None and (not isinstance(x, containers.OptionalValue) or x.has_element)
    return (np.array(has, dtype=bool),)
