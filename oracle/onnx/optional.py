"""ONNX Optional: an optional holding the input, or an empty one of the type `type` names."""
from opconform import containers
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    x = inputs[0] if inputs else None
    inner = attributes.get("type") if x is None else containers.type_of(x)
    return (sequences.optional_of(x, inner),)
