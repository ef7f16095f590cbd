"""ONNX ReduceMax: see oracle/kernels/reduce.py."""
from opconform.oracle.kernels import reduce


def run(spec, inputs, attributes, policies):
    return reduce.run(reduce.MAX, spec, inputs, attributes, policies)
