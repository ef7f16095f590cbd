"""OpenVINO LRN-1: data / (bias + alpha / size**len(axes) * sqr_sum)**beta, sqr_sum over the box
around each element along the axes (clipped at the edges), by the policy intermediate_precision
(wide: float64, rounded once; input_type: in data's type). The box's
half-width is size // 2 (the text) or (size - 1) // 2 (OpenVINO's reference): policy window."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.precision import to_type, working


def _box_sum(a: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum of a over [i - half, i + half] along axis, clipped to the tensor: shifted copies added,
    not a cumulative sum (whose differences turn one inf into NaN everywhere after it)."""
    n = a.shape[axis]
    out = a.copy()
    for k in range(1, min(half, n - 1) + 1):
        ahead = [slice(None)] * a.ndim
        behind = [slice(None)] * a.ndim
        ahead[axis], behind[axis] = slice(0, n - k), slice(k, n)
        out[tuple(ahead)] += a[tuple(behind)]  # element i + k into i
        out[tuple(behind)] += a[tuple(ahead)]  # element i - k into i
    return out


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    axes = sorted({int(a) for a in np.asarray(inputs[1]).reshape(-1)})
    size = int(attributes["size"])
    half = size // 2 if policies.get("window", "document") == "document" else (size - 1) // 2
    x = working(data, policies)
    t = x.dtype.type
    with np.errstate(all="ignore"):  # inf * 0 and overflow: the formula's IEEE result
        sqr = x * x
        for axis in axes:
            sqr = _box_sum(sqr, axis, half)
        scale = t(float(attributes["alpha"]) / float(size) ** len(axes))
        y = x / (t(float(attributes["bias"])) + scale * sqr) ** t(float(attributes["beta"]))
    return (to_type(y, data.dtype),)
