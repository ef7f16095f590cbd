"""ONNX SequenceLength: how many tensors the sequence holds, an int64 scalar."""
from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    return (sequences.int64_scalar(len(inputs[0].items)),)
