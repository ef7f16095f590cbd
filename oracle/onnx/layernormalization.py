"""ONNX LayerNormalization-17: stage one (standardize over axes [axis, r)) in the stash type,
stage two (scale, shift) in T, each equation rounded to its type as the text describes."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import standardize


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    bias = inputs[2] if len(inputs) > 2 else None
    stash = np.float32 if attributes["stash_type"] == 1 else ml_dtypes.bfloat16
    axes = tuple(range(axis_of(attributes["axis"], x.ndim), x.ndim))
    normalized, mean, inv_std = standardize(x, axes, attributes["epsilon"], stash)
    with np.errstate(all="ignore"):
        y = normalized.astype(x.dtype) * np.asarray(inputs[1])
        if bias is not None:
            y = y + np.asarray(bias)
    return y.astype(x.dtype), mean, inv_std
