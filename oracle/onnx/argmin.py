"""ONNX ArgMin: index of the min along an axis, first or last occurrence."""
from __future__ import annotations

from opconform.oracle.kernels.indexing import arg_reduce


def run(spec, inputs, attributes, policies):
    return arg_reduce(inputs, attributes, policies, largest=False)
