"""ONNX SequenceEmpty: an empty sequence of the element type `dtype` names."""
from opconform import dtypes
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    # "If not specified, default is float" (no default value in onnx.defs: an omitted dtype stays omitted)
    return (sequences.of_tensors(dtypes.BY_ONNX[int(attributes.get("dtype", 1))].name, []),)
