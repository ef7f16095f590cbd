"""ONNX ConcatFromSequence: the sequence's tensors joined along `axis` (new_axis 0, as Concat)
or stacked along a new axis (new_axis 1, as numpy.stack). Tensors whose shapes differ other
than on the axis break the oracle-side relation shapes_agree (the relation language cannot drop
one entry of each shape)."""
import numpy as np

from opconform.model import RelationBroken
from opconform.specs.expr import normalize_axis


def run(spec, inputs, attributes, policies):
    items = inputs[0].items
    new_axis = int(attributes["new_axis"])
    r = items[0].ndim
    axis = int(attributes["axis"])
    axis = normalize_axis(axis, r + new_axis)
    rest = {tuple(d for k, d in enumerate(x.shape) if k != axis or new_axis) for x in items}
    if len(rest) > 1:
        raise RelationBroken(spec.id, "shapes_agree", "error",
                             "All input tensors must have the same shape, except for the dimension size of the axis to concatenate on")
    joined = np.stack(items, axis=axis) if new_axis else np.concatenate(items, axis=axis)
    return (np.array(joined, dtype=items[0].dtype, copy=True),)
