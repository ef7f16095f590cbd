"""ONNX Conv: Y[n, m, o] = B[m] + sum over the channels of m's group and the kernel taps of
X[n, c, o * strides - pads_begin + k * dilations] * W[m, c, k], X zero padded (explicit pads or
auto_pad), as one matrix product per group over sliding windows (oracle/kernels/conv.py).

Policy intermediate_precision: `wide` -- products and sums in float64, the bias added, rounded
once; `input_type` -- every product and addition rounded to T, the bias added in T."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, linalg, precision


def run(spec, inputs, attributes, policies):
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    b = inputs[2] if len(inputs) > 2 else None
    kernel = attributes.get("kernel_shape") or w.shape[2:]
    win = conv.window(x.shape[2:], kernel, attributes)
    y = conv.convolve(x, w, win, int(attributes.get("group") or 1), spec.id, policies)
    return (with_bias(y, b, x.dtype, policies),)


def with_bias(y: np.ndarray, b, dtype, policies) -> np.ndarray:
    """y + B (one per output channel), in float64 then rounded (wide) or in T (input_type)."""
    lay = (slice(None),) + (None,) * (y.ndim - 2)
    with np.errstate(all="ignore"):
        if precision.narrow_policy(policies):
            y = y.astype(dtype)
            return y if b is None else (y + np.asarray(b, dtype=dtype)[lay]).astype(dtype)
        if b is not None:
            y = y + linalg.widen(np.asarray(b))[lay]
        return linalg.narrow(y, dtype)
