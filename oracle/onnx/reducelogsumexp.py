"""ONNX ReduceLogSumExp: see oracle/kernels/reduce.py."""
from opconform.oracle.kernels import reduce


def run(spec, inputs, attributes, policies):
    return reduce.run(reduce.LOG_SUM_EXP, spec, inputs, attributes, policies)
