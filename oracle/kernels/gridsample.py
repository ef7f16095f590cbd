"""Sampling an N-D image at arbitrary points (ONNX GridSample): each spatial axis gives every
output point a few taps and weights (nearest: one; linear: two; cubic: four), and the output is the
sum over the products of the axes' weights, one gather per combination of taps (at most 4**3 for
3-D images), so no Python loop runs over output points. Weights and sums are float64."""
from __future__ import annotations

import itertools

import numpy as np

from opconform.oracle.kernels.resize import keys_cubic


def unnormalize(g: np.ndarray, size: int, align_corners: bool) -> np.ndarray:
    """Grid coordinate in [-1, 1] to a pixel coordinate: the extrema are the corner pixels'
    centres (align_corners) or their outer edges."""
    if align_corners:
        return (g + 1) / 2 * (size - 1)
    return ((g + 1) * size - 1) / 2


def reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """x reflected by the borders lo and hi until it is within them ("If pixel location x = -3.5
    reflects by border -1 and becomes x' = 1.5, then reflects by border 1 and becomes x'' = 0.5")."""
    span = hi - lo
    if span <= 0:
        return np.full_like(x, lo)
    below = x < lo
    dist = np.where(below, lo - x, x - hi)
    n = np.floor(dist / span)
    rest = dist - n * span
    even = n % 2 == 0
    inside = (x >= lo) & (x <= hi)
    return np.where(inside, x, np.where(below == even, lo + rest, hi - rest))


def borders(size: int, align_corners: bool) -> tuple[float, float]:
    return (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)


def pad_coordinate(x: np.ndarray, size: int, padding: str, align_corners: bool) -> np.ndarray:
    """A coordinate outside the borders, moved in by the padding mode (zeros: left as it is)."""
    lo, hi = borders(size, align_corners)
    outside = (x < lo) | (x > hi)
    if padding == "border":
        return np.where(outside, np.clip(x, 0, size - 1), x)
    if padding == "reflection":
        return np.where(outside, reflect(x, lo, hi), x)
    return x


def pad_index(i: np.ndarray, size: int, padding: str, align_corners: bool) -> tuple[np.ndarray, np.ndarray]:
    """Tap indices inside the axis, and where a tap reads 0 (zeros padding outside the image)."""
    if padding == "zeros":
        valid = (i >= 0) & (i < size)
        return np.clip(i, 0, size - 1), valid
    if padding == "border":
        return np.clip(i, 0, size - 1), np.ones(i.shape, dtype=bool)
    lo, hi = borders(size, align_corners)
    j = np.trunc(reflect(i.astype(np.float64), lo, hi)).astype(np.int64)
    return np.clip(j, 0, size - 1), np.ones(i.shape, dtype=bool)


def axis_taps(x: np.ndarray, size: int, mode: str, padding: str, align_corners: bool, nearest_rule: str,
              cubic_pads_coordinate: bool) -> tuple[np.ndarray, np.ndarray]:
    """(index, weight) per tap along one axis: arrays of shape x.shape + (k,); a tap that reads
    zeros padding has weight 0 (its index clamped, so the gather stays in bounds)."""
    if mode == "nearest":
        r = np.rint(x) if nearest_rule == "half_even" else np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
        taps = pad_coordinate(r, size, padding, align_corners).astype(np.int64)[..., None]
        weights = np.ones(taps.shape)
    else:
        if mode == "linear" or cubic_pads_coordinate:
            x = pad_coordinate(x, size, padding, align_corners)
        base = np.floor(x)
        t = (x - base)[..., None]
        if mode == "linear":
            offsets = np.arange(0, 2)
            weights = np.concatenate([1 - t, t], axis=-1)
        else:
            offsets = np.arange(-1, 3)
            weights = keys_cubic(offsets - t, -0.75)
        taps = base.astype(np.int64)[..., None] + offsets
    index, valid = pad_index(taps, size, padding, align_corners)
    return index, np.where(valid, weights, 0.0)


def sample(x: np.ndarray, grid: np.ndarray, mode: str, padding: str, align_corners: bool,
           nearest_rule: str = "half_even", cubic_pads_coordinate: bool = True, coordinate_dtype=np.float64) -> np.ndarray:
    """Y of shape (N, C, *grid.shape[1:-1]): X (N, C, d1 .. dr) read at grid (N, *out, r), whose
    last axis lists the coordinates innermost dimension first. Nearest copies elements; the other
    modes return float64 (complex128 for complex X)."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    r = len(spatial)
    out = grid.shape[1:-1]
    coords = grid.astype(coordinate_dtype)
    per_axis = []
    for k, size in enumerate(spatial):
        g = coords[..., r - 1 - k]  # the grid lists the innermost dimension first
        px = unnormalize(g, size, align_corners).astype(coordinate_dtype).astype(np.float64)
        per_axis.append(axis_taps(px, size, mode, padding, align_corners, nearest_rule, cubic_pads_coordinate))
    batch = np.arange(n).reshape((n,) + (1,) * len(out))
    moved = np.moveaxis(x, 1, -1)  # (N, d1 .. dr, C): one gather reads every channel
    weighted = mode != "nearest"
    acc = None
    for combo in itertools.product(*(range(ix.shape[-1]) for ix, _ in per_axis)):
        index = tuple(ix[..., j] for (ix, _), j in zip(per_axis, combo))
        w = np.prod([wt[..., j] for (_, wt), j in zip(per_axis, combo)], axis=0) if r else np.ones(batch.shape)
        vals = moved[(batch,) + index]  # (N, *out, C)
        if not weighted:
            acc = np.where(w[..., None] > 0, vals, np.zeros((), dtype=x.dtype) if x.dtype != object else "")
            break
        term = vals * w[..., None]
        acc = term if acc is None else acc + term
    if acc is None:
        acc = np.zeros((n,) + out + (c,))
    return np.moveaxis(acc, -1, 1)
