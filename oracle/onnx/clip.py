"""ONNX Clip-13: Min(max, Max(input, min)), bounds defaulting to the type's lowest and max."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    lo = inputs[1] if len(inputs) > 1 else None
    hi = inputs[2] if len(inputs) > 2 else None
    y = x
    with np.errstate(invalid="ignore"):  # a NaN input or bound propagates: the policy below settles it
        if lo is not None:
            y = np.maximum(y, np.asarray(lo, dtype=x.dtype))
        if hi is not None:
            y = np.minimum(y, np.asarray(hi, dtype=x.dtype))
    if policies["nan_input"] == "clamped" and x.dtype.kind not in "iu":
        bound = hi if hi is not None else lo
        if bound is not None:
            y = np.where(np.isnan(widen(x)), np.asarray(bound, dtype=x.dtype), y)
    return (y.astype(x.dtype, copy=False),)
