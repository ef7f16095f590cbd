"""Separable resampling (ONNX Resize, Upsample): per resized axis, each output position reads a
few input positions with weights; the tensor is resampled one axis at a time with np.take and a
weighted sum over the taps, so no Python loop runs over output elements.

Nearest, linear and cubic interpolation, with or without an antialiasing filter, are one scheme:
the taps of output position y are the input positions j around its source coordinate x, weighted
by the filter f(scale * (j - x)) (the triangle for linear, Keys' cubic for cubic; scale = 1 without
antialias, and when upsampling). Taps outside the input read the edge element, or are dropped
and the weights renormalized (`exclude_outside`). N-linear and N-cubic interpolation are the
products of these 1-D weights, so resampling axis after axis is the same sum.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NEAREST_RULES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@dataclass(frozen=True)
class AxisPlan:
    """How one axis is resampled: output position y reads input positions taps[y] with weights[y]
    (nearest: one tap of weight 1); `outside[y]` marks positions that take the extrapolation value."""
    taps: np.ndarray  # (out, k) int64, within [0, in)
    weights: np.ndarray | None  # (out, k) float64; None for nearest
    outside: np.ndarray | None  # (out,) bool; None when nothing is extrapolated


def source_coordinates(mode: str, in_len: int, out_len: int, scale, roi: tuple[float, float] | None,
                       dtype=np.float64, length_resized: float | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """x_original of every output position under a coordinate_transformation_mode, computed in
    `dtype` (float32: the arithmetic implementations that keep coordinates in float do), and for
    tf_crop_and_resize which positions fall outside [0, in_len - 1]. `length_resized` is the
    length the formulas divide by: out_len, or the fractional in_len * scale a scale asks for."""
    t = np.dtype(dtype).type
    y = np.arange(out_len, dtype=dtype)
    s, n_in, half = t(scale), t(in_len), t(0.5)
    n_out = t(out_len if length_resized is None else length_resized)
    int_out = t(out_len)
    outside = None
    if mode == "half_pixel":
        x = (y + half) / s - half
    elif mode == "half_pixel_symmetric":
        width = s * n_in  # the fractional output width the scale asks for (0 only for an empty axis)
        offset = n_in / t(2) * (t(1) - int_out / width) if width else t(0)
        x = offset + (y + half) / s - half
    elif mode == "pytorch_half_pixel":
        x = (y + half) / s - half if n_out > 1 else np.zeros(out_len, dtype=dtype)
    elif mode == "align_corners":
        x = y * (n_in - t(1)) / (n_out - t(1)) if n_out != 1 else np.zeros(out_len, dtype=dtype)
    elif mode == "asymmetric":
        x = y / s
    elif mode == "tf_half_pixel_for_nn":
        x = (y + half) / s
    elif mode == "tf_crop_and_resize":
        start, end = t(roi[0]), t(roi[1])
        if n_out != 1:
            x = start * (n_in - t(1)) + y * (end - start) * (n_in - t(1)) / (n_out - t(1))
        else:
            x = np.full(out_len, half * (start + end) * (n_in - t(1)), dtype=dtype)
        outside = (x < 0) | (x > n_in - t(1))
    else:
        raise ValueError(f"coordinate_transformation_mode {mode!r}: expected one of the Resize modes")
    return np.asarray(x, dtype=np.float64), outside


def nearest_taps(x: np.ndarray, in_len: int, rule: str) -> np.ndarray:
    """The input position a source coordinate rounds to under a nearest_mode, clamped to the input."""
    lo = np.floor(x)
    frac = x - lo
    if rule == "floor":
        k = lo
    elif rule == "ceil":
        k = np.ceil(x)
    elif rule == "round_prefer_floor":
        k = np.where(frac <= 0.5, lo, lo + 1)
    elif rule == "round_prefer_ceil":
        k = np.where(frac < 0.5, lo, lo + 1)
    else:
        raise ValueError(f"nearest_mode {rule!r}: expected one of {NEAREST_RULES}")
    return np.clip(k, 0, in_len - 1).astype(np.int64)[:, None]


def keys_cubic(d: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel at distance d (Equation (4) of Keys 1981, coefficient a)."""
    d = np.abs(d)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def triangle(d: np.ndarray) -> np.ndarray:
    return np.clip(1 - np.abs(d), 0.0, 1.0)


def filter_taps(x: np.ndarray, in_len: int, mode: str, scale: float, cubic_a: float, antialias: bool,
                exclude_outside: bool, clip_window: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Taps and weights of linear or cubic interpolation at source coordinates x. With antialias and
    scale < 1 the filter is stretched by 1 / scale and normalized to sum 1. Taps outside the input
    read the edge element (their index clamped), or are dropped and the rest renormalized
    (exclude_outside, or clip_window: Pillow's window, cut to the input)."""
    stretch = min(float(scale), 1.0) if antialias else 1.0
    support = (1.0 if mode == "linear" else 2.0) / stretch
    reach = int(np.ceil(support)) + 1
    base = np.floor(x).astype(np.int64)
    taps = base[:, None] + np.arange(-reach + 1, reach + 1)[None, :]
    d = stretch * (taps - x[:, None])
    weights = triangle(d) if mode == "linear" else keys_cubic(d, cubic_a)
    if antialias and stretch < 1.0:
        weights = weights / weights.sum(axis=1, keepdims=True)
    if exclude_outside or clip_window:
        weights = np.where((taps < 0) | (taps >= in_len), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(taps, 0, in_len - 1), weights


def resample_axis(data: np.ndarray, axis: int, plan: AxisPlan, extrapolation_value: float | None = None) -> np.ndarray:
    """`data` resampled along `axis` by the plan (float64 or complex data for weighted taps)."""
    gathered = np.take(data, plan.taps, axis=axis)  # the axis becomes (out, k)
    if plan.weights is None:
        out = np.take(gathered, 0, axis=axis + 1)
    else:
        shape = (1,) * axis + plan.weights.shape + (1,) * (data.ndim - axis - 1)
        out = (gathered * plan.weights.reshape(shape)).sum(axis=axis + 1)
    if plan.outside is not None and plan.outside.any():
        mask = plan.outside.reshape((1,) * axis + (-1,) + (1,) * (data.ndim - axis - 1))
        fill = np.asarray(extrapolation_value).astype(out.dtype) if out.dtype != object else extrapolation_value
        out = np.where(mask, fill, out)
    return out


def round_half_up(v: np.ndarray) -> np.ndarray:
    """round_int of Resize's keep_aspect_ratio_policy: the nearest integer, halfway cases up."""
    return np.floor(np.asarray(v) + 0.5).astype(np.int64)
