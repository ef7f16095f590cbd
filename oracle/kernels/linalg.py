"""Shared numeric helpers of the softmax, matrix and normalization oracles: compute in float64
(which holds every narrower float exactly) and round once to the output type."""
from __future__ import annotations

import numpy as np


def widen(x: np.ndarray) -> np.ndarray:
    """Floats (float16, bfloat16, float32...) as float64; integers stay as they are."""
    x = np.asarray(x)
    return x if x.dtype.kind in "iub" else x.astype(np.float64)


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """log(exp(x) / sum(exp(x))) along axis, in float64, shifted by the max so large inputs stay finite."""
    w = widen(x)
    shift = np.max(w, axis=axis, keepdims=True) if w.size else 0.0
    z = w - shift
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy.matmul in float64 for floats; integers multiply in their own type (wrapping)."""
    with np.errstate(all="ignore"):
        return np.matmul(widen(a), widen(b))
