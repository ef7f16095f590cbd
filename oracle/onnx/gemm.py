"""ONNX Gemm-13: Y = alpha * A' * B' + beta * C, C unidirectionally broadcast to (M, N)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import matmul, narrow, widen


def run(spec, inputs, attributes, policies):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    c = inputs[2] if len(inputs) > 2 else None
    a = a.T if attributes["transA"] else a
    b = b.T if attributes["transB"] else b
    integer = a.dtype.kind in "iu"
    # integers: alpha and beta are integral here (a relation says so), applied in the tensor's type
    alpha, beta = attributes["alpha"], attributes["beta"]
    if integer:  # wrap like the tensor's own arithmetic (e.g. -1 as uint32)
        alpha, beta = (np.array(int(v)).astype(a.dtype)[()] for v in (alpha, beta))
    with np.errstate(all="ignore"):
        y = alpha * matmul(a, b)
        if c is not None:
            y = y + beta * widen(c)
    return (narrow(np.broadcast_to(y, (a.shape[0], b.shape[1])), a.dtype),)
