"""OpenVINO RandomUniform-8: random output (compare: judged). run() gives the representative (every
element minval, in output_type, of the shape `shape` holds); judge() holds a backend's samples to
U[minval, maxval): floats by oracle/kernels/random_outputs.py's uniform judge, integers (x mod
(maxval - minval) + minval) as the discrete uniform on minval .. maxval - 1, each integer standing
for [k, k + 1) under the same Dvoretzky-Kiefer-Wolfowitz bound."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion
from opconform.oracle.kernels import random_outputs, random_stats


def _bounds(inputs: list) -> tuple[float, float]:
    return tuple(float(np.asarray(inputs[k]).astype(np.float64).reshape(-1)[0]) for k in (1, 2))


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    dtype = dtypes.numpy_dtype(spec.outputs[0].type_map[attributes["output_type"]])
    shape = tuple(int(d) for d in np.asarray(inputs[0]).reshape(-1))
    return (np.full(shape, np.asarray(inputs[1]).reshape(-1)[0]).astype(dtype),)


def judge_integers(y: np.ndarray, low: float, high: float) -> str:
    """Draws of the integers low .. high - 1, each equally likely."""
    yf = np.asarray(y, dtype=np.float64)
    outside = (yf < low) | (yf >= high)
    if outside.any():
        at = [int(i) for i in np.argwhere(outside)[0]]
        return f"output at {at}: got {yf[tuple(at)]!r}, outside [minval, maxval) = [{low:g}, {high:g})"

    def cdf(t: np.ndarray) -> np.ndarray:
        return np.clip((t - low) / (high - low), 0.0, 1.0)

    # integer k stands for [k, k + 1): P(X <= k) = cdf(k + 1), P(X < k) = cdf(k)
    return random_stats.distribution(yf, cdf, np.ones_like(yf), what=f"the integers of [{low:g}, {high:g})")


def judge(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, outputs) -> str:
    y = np.asarray(outputs["output"])
    low, high = _bounds(inputs)
    if y.dtype.kind in "iu":
        return judge_integers(y, low, high)
    return random_outputs.judge_uniform(y, low, high)
