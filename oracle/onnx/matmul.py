"""ONNX MatMul: numpy.matmul (broadcast stacks; 1-D operands promoted and the added axis removed)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import matmul, narrow


def run(spec, inputs, attributes, policies):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    return (narrow(matmul(a, b), a.dtype),)
