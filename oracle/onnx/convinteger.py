"""ONNX ConvInteger: Conv of (x - x_zero_point) and (w - w_zero_point) in exact integers, int32
out (oracle/kernels/conv.py). w_zero_point is one per tensor or one per output channel. The
padding adds zeros to x - x_zero_point (x_zero_point in x's own terms: onnx.reference subtracts
before padding, onnxruntime pads with the zero point). Where some order of a window's int32
accumulation leaves int32 the outcome is undefined (oracle-side relation integer_overflow)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv


def centered(x: np.ndarray, zero_point, per_channel: bool = False) -> np.ndarray:
    """x - zero_point in int64; a 1-D zero point of several elements is per output channel (axis 0)."""
    c = np.asarray(x).astype(np.int64)
    if zero_point is None:
        return c
    zp = np.asarray(zero_point).astype(np.int64)
    if per_channel and zp.size > 1:
        return c - zp.reshape((-1,) + (1,) * (c.ndim - 1))
    return c - zp.reshape(-1)[0]


def run(spec, inputs, attributes, policies):
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    xz = inputs[2] if len(inputs) > 2 else None
    wz = inputs[3] if len(inputs) > 3 else None
    win = conv.window(x.shape[2:], attributes.get("kernel_shape") or w.shape[2:], attributes)
    y = conv.convolve(centered(x, xz), centered(w, wz, per_channel=True), win,
                      int(attributes.get("group") or 1), spec.id, policies)
    return (y.astype(np.int32),)
