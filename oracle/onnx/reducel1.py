"""ONNX ReduceL1: see oracle/kernels/reduce.py."""
from opconform.oracle.kernels import reduce


def run(spec, inputs, attributes, policies):
    return reduce.run(reduce.L1, spec, inputs, attributes, policies)
