"""ONNX SequenceEmpty: an empty sequence of the element type `dtype` names."""
from opconform import dtypes
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    return (sequences.of_tensors(dtypes.BY_ONNX[int(attributes["dtype"])].name, []),)
