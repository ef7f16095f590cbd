"""Shared numeric helpers of the softmax, matrix and normalization oracles: compute in float64
(which holds every narrower float exactly) and round once to the output type."""
from __future__ import annotations

import numpy as np


def widen(x: np.ndarray) -> np.ndarray:
    """Floats (float16, bfloat16, float32...) as float64; integers stay as they are."""
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return x
    with np.errstate(invalid="ignore"):  # ml_dtypes' narrow floats flag a NaN they widen exactly
        return x.astype(np.float64)


def narrow(y: np.ndarray, dtype) -> np.ndarray:
    """A float64 result rounded to the element type: past its range it becomes inf, and NaN stays
    NaN (or, for integers, some value: the spec leaves it open), as the spec means; NumPy's
    overflow and invalid-cast warnings would only report that expected case."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(y).astype(dtype)


def mean(x: np.ndarray, axis, keepdims: bool = True) -> np.ndarray:
    """np.mean as sum / count (the same arithmetic), quiet when the slice is empty (NaN, as
    np.mean gives, without its "Mean of empty slice" warning) or the sum overflows (inf)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    acc = np.float64 if x.dtype.kind in "iub" else None  # as np.mean: integers sum in float64
    with np.errstate(all="ignore"):
        return np.true_divide(np.sum(x, axis=axes, dtype=acc, keepdims=keepdims), count)


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """log(exp(x) / sum(exp(x))) along axis, in float64, shifted by the max so large inputs stay finite."""
    w = widen(x)
    shift = np.max(w, axis=axis, keepdims=True) if w.size else 0.0
    # inf - inf: NaN, the answer for a row holding inf; -max - max overflows to -inf, whose
    # softmax share is 0 (log: -inf), the answer too
    with np.errstate(invalid="ignore", over="ignore"):
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
