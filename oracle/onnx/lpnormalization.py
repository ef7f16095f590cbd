"""ONNX LpNormalization: input / Lp_norm(input, axis), zero where the norm is zero (p in {1, 2})."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    w = widen(x)
    axis = axis_of(attributes["axis"], x.ndim)
    with np.errstate(all="ignore"):
        norm = np.sum(np.abs(w), axis=axis, keepdims=True) if attributes["p"] == 1 else \
            np.sqrt(np.sum(w * w, axis=axis, keepdims=True))
        y = np.where(norm == 0, 0.0, w / norm)
    return (y.astype(x.dtype),)
