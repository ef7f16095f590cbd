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


def standardize(x: np.ndarray, axes: tuple, epsilon: float, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x - mean) / sqrt(var + epsilon) over `axes` with each equation rounded to `dtype` (the
    normalization operators' stash type); means sum in float64. Returns (normalized, mean, 1/std)."""
    def mean(v):
        return np.mean(v.astype(np.float64), axis=axes, keepdims=True).astype(dtype)

    with np.errstate(all="ignore"):
        xs = x.astype(dtype)
        mu = mean(xs)
        d = xs - mu
        inv_std = np.reciprocal(np.sqrt(mean(d * d) + np.asarray(epsilon).astype(dtype)))
        return d * inv_std, mu, inv_std


def cosine_window(inputs, attributes, coefficients: tuple[float, ...]) -> tuple[np.ndarray]:
    """The window ops (Hann, Hamming, Blackman): sum_k (-1)^k a_k cos(2 pi k n / N) for n < size,
    N = size if periodic else size - 1, in float64, cast to output_datatype."""
    from opconform import dtypes

    size = int(np.asarray(inputs[0]).reshape(()))
    n = np.arange(size, dtype=np.float64)
    period = size if attributes["periodic"] else size - 1
    phase = 2.0 * np.pi * n / period if size else n
    w = sum(((-1) ** k) * a * np.cos(k * phase) for k, a in enumerate(coefficients))
    return (np.asarray(w, dtype=np.float64).astype(dtypes.BY_ONNX[int(attributes["output_datatype"])].numpy),)
