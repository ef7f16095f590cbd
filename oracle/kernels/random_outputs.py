"""The random operators' outputs (RandomNormal, RandomUniform and their -Like forms, Bernoulli,
Multinomial): the element type their `dtype` attribute names, a representative the runner compares
types and shapes with (compare: judged), and the judgement of a backend's values -- the text's exact
properties first (finite, within the range, 0 or 1, a class index), then a test against the
stated distribution whose false-alarm rate is random_stats.ALPHA per case."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import random_stats
from opconform.oracle.kernels.elementwise import erf


def element_type(attributes: dict, like: np.ndarray | None = None) -> np.dtype:
    """The type `dtype` names (a TensorProto DataType), else the input's (the -Like forms, Bernoulli)."""
    code = attributes.get("dtype")
    if code is None:
        return np.asarray(like).dtype
    return dtypes.BY_ONNX[int(code)].numpy


def stored(value: float) -> float:
    """A float attribute as a model stores it (AttributeProto.f is float32)."""
    return float(np.float32(value))


def in_type(value: float, dtype: np.dtype) -> float:
    """`value` rounded to the output type, as a bound the output can hold."""
    with np.errstate(over="ignore"):
        return float(np.asarray(value, dtype=np.float64).astype(dtype))


def _values(y: np.ndarray) -> tuple[np.ndarray, str]:
    yf = np.asarray(y, dtype=np.float64)
    bad = ~np.isfinite(yf)
    if bad.any():
        at = [int(i) for i in np.argwhere(bad)[0]]
        return yf, f"output at {at}: got {yf[tuple(at)]!r}, expected a finite sample ({int(bad.sum())} of {yf.size} not finite)"
    return yf, ""


def _point_mass(yf: np.ndarray, value: float, what: str) -> str:
    wrong = yf != value
    if wrong.any():
        at = [int(i) for i in np.argwhere(wrong)[0]]
        return f"output at {at}: got {yf[tuple(at)]!r}, expected {value!r} ({what}; {int(wrong.sum())} of {yf.size} differ)"
    return ""


def judge_normal(y: np.ndarray, mean: float, scale: float) -> str:
    """Samples of N(mean, scale^2): finite, and close to its CDF by the DKW bound; scale 0 is the mean."""
    yf, why = _values(y)
    if why:
        return why
    mean, scale = stored(mean), stored(scale)
    if scale == 0.0:
        return _point_mass(yf, in_type(mean, y.dtype), "scale 0: every sample is the mean")

    def cdf(t: np.ndarray) -> np.ndarray:
        return 0.5 * (1.0 + erf((t - mean) / (scale * np.sqrt(2.0))))

    slack = random_stats.rounding_slack(yf, y.dtype, abs(mean) + scale)
    return random_stats.distribution(yf, cdf, slack, what=f"N(mean {mean:g}, scale {scale:g})")


def judge_uniform(y: np.ndarray, low: float, high: float) -> str:
    """Samples of U(low, high): within [low, high] (up to one rounding in the output type), and close
    to its CDF by the DKW bound; low == high is a point mass."""
    yf, why = _values(y)
    if why:
        return why
    low, high = stored(low), stored(high)
    if low == high:
        return _point_mass(yf, in_type(low, y.dtype), "low == high: every sample is low")
    slack = random_stats.rounding_slack(yf, y.dtype, max(abs(low), abs(high)))
    outside = (yf < in_type(low, y.dtype) - slack) | (yf > in_type(high, y.dtype) + slack)
    if outside.any():
        at = [int(i) for i in np.argwhere(outside)[0]]
        return (f"output at {at}: got {yf[tuple(at)]!r}, outside [low, high] = [{low:g}, {high:g}] "
                f"({int(outside.sum())} of {yf.size} outside)")

    def cdf(t: np.ndarray) -> np.ndarray:
        return np.clip((t - low) / (high - low), 0.0, 1.0)

    return random_stats.distribution(yf, cdf, slack, what=f"U(low {low:g}, high {high:g})")


def judge_binary(y: np.ndarray, p: np.ndarray) -> str:
    """Bernoulli draws: every element 0 or 1 (true / false), 1 with its own probability p (grouped
    binomial tests: the elements sharing a probability are counted together)."""
    yf = np.asarray(y, dtype=np.float64)
    bad = (yf != 0) & (yf != 1)
    if bad.any():
        at = [int(i) for i in np.argwhere(bad)[0]]
        return f"output at {at}: got {yf[tuple(at)]!r}, expected 0 or 1 ({int(bad.sum())} of {yf.size} other)"
    why = random_stats.grouped_counts(yf == 1, np.asarray(p, dtype=np.float64))
    return f"ones drawn: {why}" if why else ""


def judge_categorical(y: np.ndarray, probabilities: np.ndarray) -> str:
    """Rows of class indices drawn from each row's probabilities: every index one of the classes, and
    each (row, class) count a binomial test, the rows and classes sharing the false-alarm rate."""
    p = np.asarray(probabilities, dtype=np.float64)
    rows, classes = p.shape
    yi = np.asarray(y)
    bad = (yi < 0) | (yi >= classes)
    if bad.any():
        at = [int(i) for i in np.argwhere(bad)[0]]
        return f"output at {at}: got {yi[tuple(at)]!r}, expected a class index in [0, {classes})"
    samples = yi.shape[1]
    if samples == 0 or rows == 0:
        return ""
    counts = np.zeros((rows, classes), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(rows), samples), yi.reshape(-1).astype(np.int64)), 1)
    alpha = random_stats.ALPHA / (rows * classes)
    for r in range(rows):
        for c in range(classes):
            why = random_stats.binomial(int(counts[r, c]), samples, float(p[r, c]), alpha)
            if why:
                return f"row {r}, class {c} drawn {why}"
    return ""
