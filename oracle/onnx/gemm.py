"""ONNX Gemm-13: Y = alpha * A' * B' + beta * C, C unidirectionally broadcast to (M, N).

Policy intermediate_precision (the text names no type for the intermediates): `wide` -- float64,
rounded once; `input_type` -- alpha and beta rounded to T, every product and addition rounded to T
(A' * B' summed over k as linalg.sum_in_type does), in the text's order: (alpha * (A' * B')) + (beta * C).
Integers: alpha and beta are integral (a relation); where some order of the products and sums
could leave the type's range (conservatively: max(|alpha|, 1) * sum|a||b| + max(|beta|, 1) * |c|
past the maximum, or a negative multiplier of an unsigned type) the outcome is undefined
(oracle-side relation integer_overflow: the text does not define integer overflow)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import linalg, precision


def run(spec, inputs, attributes, policies):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    c = inputs[2] if len(inputs) > 2 else None
    a = a.T if attributes["transA"] else a
    b = b.T if attributes["transB"] else b
    shape = (a.shape[0], b.shape[1])
    alpha, beta = attributes["alpha"], attributes["beta"]
    if not precision.is_float(a):
        _refuse_overflow(spec, a, b, c, alpha, beta)
        with np.errstate(all="ignore"):  # in range in every order: exact in the tensors' type
            y = np.matmul(a, b) * _as(alpha, a.dtype)
            if c is not None:
                y = y + np.asarray(c) * _as(beta, a.dtype)
        return (np.broadcast_to(y, shape).astype(a.dtype),)
    if precision.narrow_policy(policies):
        precision.refuse_order_dependent_products(spec.id, a, b, policies)
        t = a.dtype.type
        with np.errstate(all="ignore"):
            y = (t(np.float32(alpha)) * linalg.matmul_narrow(a, b)).astype(a.dtype)
            if c is not None:
                y = (y + (t(np.float32(beta)) * np.asarray(c)).astype(a.dtype)).astype(a.dtype)
        return (np.broadcast_to(y, shape).astype(a.dtype),)
    with np.errstate(all="ignore"):
        y = float(np.float32(alpha)) * linalg.matmul(a, b)
        if c is not None:
            y = y + float(np.float32(beta)) * linalg.widen(c)
    return (linalg.narrow(np.broadcast_to(y, shape), a.dtype),)


def _as(v: float, dtype):
    """An integral multiplier in the tensors' integer type (a negative one of an unsigned type only
    multiplies zeros here: anything else is undefined)."""
    return np.array(int(v)).astype(dtype)[()]


def _refuse_overflow(spec, a, b, c, alpha, beta) -> None:
    lo, hi = precision.integer_limits(a.dtype)
    with np.errstate(all="ignore"):
        s = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
        bound = max(abs(alpha), 1) * s
        if c is not None:
            bound = bound + max(abs(beta), 1) * np.abs(np.asarray(c).astype(np.float64))
    bad = np.asarray(bound > hi * (1 - 2.0 ** -40) - 2)
    if lo == 0:  # a negative multiplier of a non-zero unsigned term
        bad = bad | ((alpha < 0) & (s > 0))
        if c is not None:
            bad = bad | ((beta < 0) & (np.asarray(c) != 0))
    precision.refuse_overflow(spec.id, np.broadcast_to(bad, (a.shape[0], b.shape[1])) if bad.any() else None,
                              "alpha * A' * B' + beta * C of the integer tensors")
