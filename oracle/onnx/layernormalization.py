"""ONNX LayerNormalization-17: stage one (standardize over axes [axis, r)) in the stash type,
stage two (scale, shift) in T, each equation rounded to its type as the text describes."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from opconform.oracle.kernels.indexing import axis_of


def _mean(x: np.ndarray, axes: tuple, dtype) -> np.ndarray:
    return np.mean(x.astype(np.float64), axis=axes, keepdims=True).astype(dtype)  # sum wide, round once


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    scale = np.asarray(inputs[1])
    bias = inputs[2] if len(inputs) > 2 else None
    stash = np.float32 if attributes["stash_type"] == 1 else ml_dtypes.bfloat16
    axes = tuple(range(axis_of(attributes["axis"], x.ndim), x.ndim))
    with np.errstate(all="ignore"):
        xs = x.astype(stash)
        mean = _mean(xs, axes, stash)
        d = xs - mean
        var = _mean(d * d, axes, stash)
        inv_std = np.reciprocal(np.sqrt(var + stash(attributes["epsilon"])))
        y = (d * inv_std).astype(x.dtype) * scale
        if bias is not None:
            y = y + np.asarray(bias)
    return y.astype(x.dtype), mean, inv_std
