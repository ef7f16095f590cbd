"""ONNX CumSum: inclusive or exclusive running sums along an axis, forwards or reversed."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import narrow


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    axis = axis_of(np.asarray(inputs[1]).reshape(-1)[0], x.ndim)
    # floats sum in float64 and round once; integers wrap in their own type, as hardware does
    acc = np.float64 if x.dtype.kind not in "iu" else x.dtype
    v = np.flip(x, axis) if attributes["reverse"] else x
    if attributes["exclusive"]:
        # shift by one along axis (zero first) instead of subtracting x, which would turn inf into NaN
        zero = np.zeros(v.shape[:axis] + (1,) + v.shape[axis + 1:], dtype=v.dtype)
        v = np.take(np.concatenate([zero, v], axis=axis), np.arange(v.shape[axis]), axis=axis)
    with np.errstate(all="ignore"):  # inf + -inf is NaN and integers wrap, as the sum means
        y = narrow(np.cumsum(narrow(v, acc), axis=axis), x.dtype)
    return (np.flip(y, axis) if attributes["reverse"] else y,)
