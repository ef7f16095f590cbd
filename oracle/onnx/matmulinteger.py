"""ONNX MatMulInteger-10: (A - a_zero_point) x (B - b_zero_point) as numpy.matmul, int32 output."""
from __future__ import annotations

import numpy as np


def _shifted(x: np.ndarray, zero_point, per_row: bool) -> np.ndarray:
    """x minus its zero point in int64; a vector zero point of a 2-D x applies per row (A) or column (B)."""
    x = x.astype(np.int64)
    if zero_point is None:
        return x
    zp = np.asarray(zero_point).astype(np.int64)
    if zp.size == 1:
        return x - zp.reshape(())
    if x.ndim == 2 and zp.ndim == 1:
        zp = zp[:, None] if per_row else zp[None, :]
    return x - zp


def run(spec, inputs, attributes, policies):
    inputs = list(inputs) + [None] * (4 - len(inputs))
    a = _shifted(np.asarray(inputs[0]), inputs[2], per_row=True)
    b = _shifted(np.asarray(inputs[1]), inputs[3], per_row=False)
    return (np.matmul(a, b).astype(np.int32),)  # low 32 bits: the accumulation wraps in 32 bits
