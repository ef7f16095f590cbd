"""ONNX RMSNormalization-23: stage one (X / sqrt(mean(X * X) + epsilon) over axes [axis, r)) in the
stash type, each equation rounded to it, Normalized cast back to X's type T; stage two Y =
Normalized * scale in scale's type V.

Policy intermediate_precision: the ReduceMean sum accumulates in float64 and rounds once to the
stash type, and stage two multiplies in float64 and rounds once to V (wide); or the sum
accumulates in the stash type (NumPy's order) and stage two multiplies in V (stash_type, as the
function body onnx ships); see oracle/kernels/precision.py."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.indexing import axis_of

_STASH = {1: np.float32, 10: np.float16, 11: np.float64, 16: ml_dtypes.bfloat16}


def run(spec, inputs, attributes, policies):
    x, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
    stash = np.dtype(_STASH[int(attributes["stash_type"])])
    axes = tuple(range(axis_of(attributes["axis"], x.ndim), x.ndim))
    narrow = precision.narrow_policy(policies)
    with np.errstate(all="ignore"):
        xu = precision.to_type(x, stash)
        squares = (xu * xu).astype(stash)
        if narrow:
            mean = precision.mean(squares, axes, keepdims=True)
        else:
            mean = precision.to_type(precision.mean(squares.astype(np.float64), axes, keepdims=True), stash)
        epsilon = np.asarray(np.float32(attributes["epsilon"])).astype(stash)  # Cast(FloatEpsilon) to the stash type
        rms = np.sqrt((mean + epsilon).astype(stash)).astype(stash)
        normalized = precision.to_type((xu / rms).astype(stash), x.dtype)
        work = scale.dtype if narrow else np.float64
        y = (precision.to_type(normalized, work) * precision.to_type(scale, work)).astype(work)
    return (precision.to_type(y, scale.dtype),)
