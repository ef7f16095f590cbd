"""Pooling over the windows of oracle/kernels/conv.py: MaxPool (values and Indices),
AveragePool and LpPool, each one reduction over the kernel axes of one strided view.

A window position is an input element, a padding element (explicit pads or auto_pad's), or past
the padded input (ceil_mode's last window): `codes` marks them 2, 1 and 0, so that a count
includes padding or not (count_include_pad) and the part past the input is never counted
("Sliding windows that would start in the right padded region are ignored"; a window that starts
inside and reaches past the padding is cut there, as onnx.reference and onnxruntime compute it).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import conv, linalg, precision

INPUT, PADDING, PAST = 2, 1, 0
WINDOW_IN_PADDING = "window_in_padding"  # the oracle-side relation (undefined)


def codes(spatial: tuple[int, ...], win: conv.Window) -> np.ndarray:
    """(O.., K..): what each window position holds (INPUT, PADDING or PAST)."""
    marks = np.full(spatial, INPUT, dtype=np.int8)
    return conv.windows(conv.padded(marks, win, PADDING, PAST), win)


def flat(a: np.ndarray, n: int) -> np.ndarray:
    """(.., K1..Kn) with the n kernel axes merged into one (row-major: the window's scan order)."""
    return a.reshape(a.shape[:a.ndim - n] + (int(np.prod(a.shape[a.ndim - n:], dtype=np.int64)),))


def refuse_empty(spec_id: str, inside: np.ndarray, what: str) -> None:
    """A window holding no input element: the texts give its maximum (or its average without the
    padding) no value; the oracle-side relation window_in_padding (undefined)."""
    empty = ~np.any(inside, axis=-1)
    if np.any(empty):
        first = [int(i) for i in np.argwhere(empty)[0]]
        raise RelationBroken(spec_id, WINDOW_IN_PADDING, "undefined",
                             f"the window at output position {first} holds padding only: the text gives its {what} no value")


def tap_offsets(spatial: tuple[int, ...], win: conv.Window, column_major: bool) -> np.ndarray:
    """(O.., K..): the flat offset, within one (n, c) plane of X, of the input element each window
    position reads (row-major, or column-major over the spatial axes: storage_order 1)."""
    n = len(spatial)
    steps = np.cumprod((1,) + spatial[:-1]) if column_major else np.cumprod((1,) + spatial[::-1][:-1])[::-1]
    total = np.zeros(win.out + win.kernel, dtype=np.int64)
    for i in range(n):  # one term per spatial axis (a handful), not per output position
        coord = (np.arange(win.out[i])[:, None] * win.strides[i] - win.begin[i]
                 + np.arange(win.kernel[i])[None, :] * win.dilations[i])
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = win.out[i], win.kernel[i]
        total = total + (coord * int(steps[i])).reshape(shape)
    return total


def maximum(spec_id: str, x: np.ndarray, win: conv.Window, nan: str, ties: str,
            column_major: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(Y, Indices) of MaxPool. nan: `propagate` (a NaN in the window is its maximum), `ignored`
    (NaN passed over; a window of NaN only is NaN), `scan_forward` / `scan_backward` (the loop
    implementations write: the running maximum starts at the window's first (last) input element
    and takes a value only when it compares greater, so NaN exactly where it starts with one). ties: the `first` or `last` position in the
    window's row-major scan holding the maximum gives the index."""
    n = len(win.out)
    spatial = x.shape[2:]
    inside = flat(codes(spatial, win), n) == INPUT
    refuse_empty(spec_id, inside, "maximum")
    with np.errstate(invalid="ignore"):  # ml_dtypes flag a NaN they widen exactly
        w = x.astype(np.float64) if precision.is_float(x) else x.astype(np.int64)
    if w.dtype == np.float64:  # a signaling NaN quieted: np.fmax returns NaN for one (IEEE maxNum)
        w = np.where(np.isnan(w), np.nan, w)
    low = -np.inf if w.dtype == np.float64 else np.iinfo(np.int64).min
    vals = np.where(inside, flat(conv.windows(conv.padded(w, win, low), win), n), low)
    with np.errstate(invalid="ignore"):
        if nan == "propagate":
            y = np.max(vals, axis=-1)
        else:
            y = np.fmax.reduce(vals, axis=-1)
            if w.dtype == np.float64:
                y = np.where(np.all(np.isnan(vals) | ~inside, axis=-1), np.nan, y)
                if nan in ("scan_forward", "scan_backward"):  # NaN exactly where the loop starts with one
                    k = inside.shape[-1]
                    start = np.argmax(inside, axis=-1) if nan == "scan_forward" else k - 1 - np.argmax(inside[..., ::-1], axis=-1)
                    first = np.take_along_axis(np.broadcast_to(vals, vals.shape), np.broadcast_to(start, vals.shape[:-1])[..., None], axis=-1)[..., 0]
                    y = np.where(np.isnan(first), np.nan, y)
        equal = vals == y[..., None]
        if w.dtype == np.float64:
            equal |= np.isnan(vals) & np.isnan(y)[..., None]
    hit = inside & equal
    k = hit.shape[-1]
    pick = np.argmax(hit, axis=-1) if ties == "first" else k - 1 - np.argmax(hit[..., ::-1], axis=-1)
    offsets = flat(tap_offsets(spatial, win, column_major), n)  # (O.., K)
    plane = int(np.prod(spatial, dtype=np.int64))
    grid = np.broadcast_to(offsets, pick.shape + (k,))
    within = np.take_along_axis(grid, pick[..., None], axis=-1)[..., 0]
    base = (np.arange(x.shape[0])[:, None] * x.shape[1] + np.arange(x.shape[1])[None, :]) * plane
    indices = within + base.reshape(base.shape + (1,) * n)
    return linalg.narrow(y, x.dtype), indices.astype(np.int64)


def average(spec_id: str, x: np.ndarray, win: conv.Window, count_include_pad: bool,
            policies: Mapping[str, str]) -> np.ndarray:
    """AveragePool: the sum of the window's input elements over their count, padding counted
    (count_include_pad) or not. wide: in float64, rounded once; input_type: the sum in x's type,
    divided in it."""
    n = len(win.out)
    where = flat(codes(x.shape[2:], win), n)
    counted = where >= PADDING if count_include_pad else where == INPUT
    if not count_include_pad:
        refuse_empty(spec_id, counted, "average without the padding")
    count = np.sum(counted, axis=-1)
    narrow = precision.narrow_policy(policies)
    w = x if narrow else linalg.widen(x)
    vals = np.where(where == INPUT, flat(conv.windows(conv.padded(w, win, np.zeros((), w.dtype)), win), n), np.zeros((), w.dtype))
    with np.errstate(all="ignore"):
        if narrow:
            precision.refuse_order_dependent_sum(spec_id, vals, -1, policies)
            return (linalg.sum_in_type(vals, (vals.ndim - 1,)) / count.astype(x.dtype)).astype(x.dtype)
        return linalg.narrow(np.sum(vals, axis=-1) / count, x.dtype)


def lp(spec_id: str, x: np.ndarray, win: conv.Window, p: float, policies: Mapping[str, str]) -> np.ndarray:
    """LpPool: (sum over the window of |x|^p)^(1/p), padding adding 0. wide: float64, rounded
    once; input_type: every power and addition in x's type."""
    n = len(win.out)
    inside = flat(codes(x.shape[2:], win), n) == INPUT
    w = precision.working(x, policies)
    vals = np.where(inside, flat(conv.windows(conv.padded(w, win, np.zeros((), w.dtype)), win), n), np.zeros((), w.dtype))
    with np.errstate(all="ignore"):
        powers = (np.abs(vals) ** p).astype(w.dtype)
        total = linalg.sum_in_type(powers, (powers.ndim - 1,)) if precision.narrow_policy(policies) else np.sum(powers, axis=-1)
        return precision.to_type(total ** (1.0 / p), x.dtype)
