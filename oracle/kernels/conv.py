"""Sliding windows for the convolution and pooling operators (Conv, ConvTranspose, ConvInteger,
QLinearConv, the pools, Col2Im): the window geometry the ONNX texts give (auto_pad, pads,
strides, dilations, ceil_mode) and the windows themselves as one strided view
(numpy.lib.stride_tricks.sliding_window_view), so that a convolution is one matrix product and
a pooling one reduction, with no Python loop over output positions.

Layout throughout: X is (N, C, D1, ..., Dn); a window view is (N, C, O1, ..., On, K1, ..., Kn).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from opconform.oracle.kernels import linalg, precision

SAME = ("SAME_UPPER", "SAME_LOWER")


@dataclass(frozen=True)
class Window:
    """Where the windows of one operator call lie, per spatial axis."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    begin: tuple[int, ...]  # padding before the input
    end: tuple[int, ...]  # padding after it (explicit, or what auto_pad computes)
    out: tuple[int, ...]  # output extent

    @property
    def extents(self) -> tuple[int, ...]:
        """The dilated kernel's extent: (k - 1) * d + 1."""
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilations))

    @property
    def spans(self) -> tuple[int, ...]:
        """How far the windows reach in the padded input: (out - 1) * s + extent (0 without windows)."""
        return tuple((o - 1) * s + e if o > 0 else 0 for o, s, e in zip(self.out, self.strides, self.extents))


def ints_or(value, n: int, fill: int) -> tuple[int, ...]:
    """An ints attribute as a tuple, `fill` on every axis where the attribute is absent."""
    return (fill,) * n if value is None else tuple(int(v) for v in value)


def window(spatial: Sequence[int], kernel: Sequence[int], attributes: Mapping, *, ceil_mode: bool = False) -> Window:
    """The geometry of Conv's and the pools' windows over `spatial` (the input's spatial extents).

    NOTSET: out = floor((in + pads - extent) / s) + 1, or ceil with ceil_mode, where a window that
    would start in the end padding is dropped ("Sliding windows that would start in the right
    padded region are ignored"). VALID: no padding. SAME_UPPER / SAME_LOWER: out = ceil(in / s)
    and pad_shape = (out - 1) * s + extent - in split evenly, the odd one at the end (UPPER) or the
    beginning (LOWER); a negative pad_shape (a stride longer than the window) pads nothing."""
    n = len(spatial)
    kernel = tuple(int(k) for k in kernel)
    strides = ints_or(attributes.get("strides"), n, 1)
    dilations = ints_or(attributes.get("dilations"), n, 1)
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    auto_pad = attributes.get("auto_pad") or "NOTSET"
    if auto_pad in SAME:
        out = tuple(-(-i // s) for i, s in zip(spatial, strides))
        total = [max(0, (o - 1) * s + e - i) for o, s, e, i in zip(out, strides, extents, spatial)]
        small = [t // 2 for t in total]
        big = [t - t // 2 for t in total]
        begin, end = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        return Window(kernel, strides, dilations, tuple(begin), tuple(end), out)
    if auto_pad == "VALID":
        pads = (0,) * (2 * n)
    else:
        pads = ints_or(attributes.get("pads"), 2 * n, 0)
    begin, end = pads[:n], pads[n:]
    out = []
    for i, s, e, b, a in zip(spatial, strides, extents, begin, end):
        room = i + b + a - e
        if not ceil_mode or auto_pad == "VALID":
            o = room // s + 1
        else:
            o = -(-room // s) + 1
            if o > 0 and (o - 1) * s >= i + b:
                o -= 1
        out.append(max(o, 0))
    return Window(kernel, strides, dilations, tuple(begin), tuple(end), tuple(out))


def padded(x: np.ndarray, w: Window, value, beyond=None) -> np.ndarray:
    """x padded on its spatial axes by the window's padding with `value`, and further at the end
    (with `beyond`, default `value`) up to where the last window reaches (ceil_mode)."""
    lead = [(0, 0)] * (x.ndim - len(w.out))
    width = lead + [(b, e) for b, e in zip(w.begin, w.end)]
    y = np.pad(x, width, mode="constant", constant_values=value) if any(b or e for b, e in width) else x
    extra = [max(0, r - n) for r, n in zip(w.spans, y.shape[len(lead):])]
    if any(extra):
        y = np.pad(y, lead + [(0, e) for e in extra], mode="constant",
                   constant_values=value if beyond is None else beyond)
    return y


def windows(xp: np.ndarray, w: Window) -> np.ndarray:
    """The windows of a padded array as one strided view: (..., O1..On, K1..Kn) over its last n axes."""
    n = len(w.out)
    lead = xp.ndim - n
    if any(o == 0 for o in w.out):
        return np.zeros(xp.shape[:lead] + w.out + w.kernel, dtype=xp.dtype)
    view = sliding_window_view(xp, w.extents, axis=tuple(range(lead, xp.ndim)))
    picks = tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(w.out, w.strides))
    taps = tuple(slice(None, None, d) for d in w.dilations)
    return view[(Ellipsis,) + picks + taps]


def grouped_columns(cols: np.ndarray, group: int) -> np.ndarray:
    """Windows (N, C, O.., K..) as the left operand of one batched product per group:
    (G, N * prod(O), C/G * prod(K))."""
    n = (cols.ndim - 2) // 2
    N, C = cols.shape[:2]
    outs, ks = cols.shape[2:2 + n], cols.shape[2 + n:]
    g = cols.reshape((N, group, C // group) + outs + ks)
    order = (1, 0) + tuple(range(3, 3 + n)) + (2,) + tuple(range(3 + n, 3 + 2 * n))
    return g.transpose(order).reshape(group, N * int(np.prod(outs, dtype=np.int64)), (C // group) * int(np.prod(ks, dtype=np.int64)))


def grouped_filters(w: np.ndarray, group: int) -> np.ndarray:
    """W (M, C/G, K..) as the right operand: (G, C/G * prod(K), M/G)."""
    m = w.shape[0]
    return w.reshape(group, m // group, int(np.prod(w.shape[1:], dtype=np.int64))).transpose(0, 2, 1)


def ungrouped(y: np.ndarray, n_batch: int, outs: tuple[int, ...]) -> np.ndarray:
    """The product (G, N * prod(O), M/G) back as (N, M, O..)."""
    g, _, mg = y.shape
    y = y.reshape((g, n_batch) + outs + (mg,))
    order = (1, 0, y.ndim - 1) + tuple(range(2, 2 + len(outs)))
    return y.transpose(order).reshape((n_batch, g * mg) + outs)


def convolve(x: np.ndarray, w: np.ndarray, win: Window, group: int, spec_id: str,
             policies: Mapping[str, str]) -> np.ndarray:
    """sum over c, k of x[n, g*C/G + c, o*s - begin + k*d] * w[m, c, k], zero padded: windows and
    one product per group. Floats: float64 (wide) or every product and sum in x's type
    (input_type); integers (ConvInteger's differences, already int64) exactly, where no order of
    the int32 accumulation leaves its range (else the oracle-side relation integer_overflow)."""
    narrow = precision.is_float(x) and precision.narrow_policy(policies)
    # widened before the windows are gathered: one copy of the windows, already in the product's type
    t = x.dtype if narrow else (np.float64 if precision.is_float(x) else np.int64)
    with np.errstate(invalid="ignore"):  # ml_dtypes flag a NaN they widen exactly
        xw, ww = x.astype(t, copy=False), w.astype(t, copy=False)
    cols = grouped_columns(windows(padded(xw, win, np.zeros((), dtype=t)), win), group)
    filt = grouped_filters(ww, group)
    if not precision.is_float(x):
        precision.refuse_overflow(spec_id, linalg.matmul_overflow(cols, filt, np.int32),
                                  "the int32 accumulation of a window's products")
        y = np.matmul(cols, filt)
    elif narrow:
        precision.refuse_order_dependent_products(spec_id, cols, filt, policies)
        y = linalg.matmul_narrow(cols, filt) if cols.shape[-1] else np.zeros(cols.shape[:2] + filt.shape[-1:], x.dtype)
    else:
        with np.errstate(all="ignore"):  # inf * 0 and sums past float64: IEEE results, as the text means
            y = np.matmul(cols, filt)
    return ungrouped(y, x.shape[0], win.out)


@dataclass(frozen=True)
class Transposed:
    """Where ConvTranspose's output lies in the full result of scattering every input element's
    products (s * (in - 1) + (k - 1) * d + 1 long per axis): it starts `begin` in and is `out` long
    (a start below 0 or an end past the full length reads zeros)."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    begin: tuple[int, ...]
    out: tuple[int, ...]


def transposed(spatial: Sequence[int], kernel: Sequence[int], attributes: Mapping, truncate: bool = False) -> Transposed:
    """ConvTranspose's geometry. With output_shape (its last n entries: the text's n, or N, C and
    n): total_padding = s * (in - 1) + output_padding + (k - 1) * d + 1 - output_shape, the larger
    half at the end for SAME_UPPER and at the beginning otherwise ("Else: pads[start_i] =
    total_padding[i] - (total_padding[i]/2)"); SAME_UPPER / SAME_LOWER without it: output_shape =
    in * s, split alike; VALID: no padding; NOTSET: out = s * (in - 1) + output_padding + (k - 1) * d
    + 1 - pads_begin - pads_end. A negative odd total padding (output_shape past the full result)
    halves toward minus infinity, or toward zero with `truncate` (C's integer division)."""
    n = len(spatial)
    kernel = tuple(int(k) for k in kernel)
    strides = ints_or(attributes.get("strides"), n, 1)
    dilations = ints_or(attributes.get("dilations"), n, 1)
    extra = ints_or(attributes.get("output_padding"), n, 0)
    full = [s * (i - 1) + a + (k - 1) * d + 1 for s, i, a, k, d in zip(strides, spatial, extra, kernel, dilations)]
    auto_pad = attributes.get("auto_pad") or "NOTSET"
    wanted = attributes.get("output_shape")
    if wanted is not None or auto_pad in SAME:
        out = [int(v) for v in wanted][-n:] if wanted is not None else [i * s for i, s in zip(spatial, strides)]
        total = [f - o for f, o in zip(full, out)]
        half = [int(t / 2) if truncate else t // 2 for t in total]
        begin = [h if auto_pad == "SAME_UPPER" else t - h for t, h in zip(total, half)]
        return Transposed(kernel, strides, dilations, tuple(begin), tuple(out))
    pads = (0,) * (2 * n) if auto_pad == "VALID" else ints_or(attributes.get("pads"), 2 * n, 0)
    out = [f - b - e for f, b, e in zip(full, pads[:n], pads[n:])]
    return Transposed(kernel, strides, dilations, tuple(pads[:n]), tuple(max(o, 0) for o in out))


def scatter_offsets(spatial: Sequence[int], geo: Transposed, full: Sequence[int]) -> np.ndarray:
    """(I.., K..) -> the flat position, in the full result, that input position i and kernel tap k
    add to: i * s + k * d per axis (one term per spatial axis, not per position)."""
    n = len(spatial)
    steps = np.cumprod((1,) + tuple(full[::-1][:-1]))[::-1]
    total = np.zeros(tuple(spatial) + geo.kernel, dtype=np.int64)
    for a in range(n):
        at = np.arange(spatial[a])[:, None] * geo.strides[a] + np.arange(geo.kernel[a])[None, :] * geo.dilations[a]
        shape = [1] * (2 * n)
        shape[a], shape[n + a] = spatial[a], geo.kernel[a]
        total = total + (at * int(steps[a])).reshape(shape)
    return total


def convolve_transposed(x: np.ndarray, w: np.ndarray, geo: Transposed, group: int, spec_id: str,
                        policies: Mapping[str, str]) -> np.ndarray:
    """Y[n, g*M/G + m, i * s + k * d - begin] += sum over c of X[n, g*C/G + c, i] * W[g*C/G + c, m, k]:
    the channel sums as one product per group, the scatter as one np.add.at, then the output
    window cut out of the full result (zeros where it reaches past it). Floats in float64 (wide)
    or every product and addition in x's type (input_type)."""
    n = x.ndim - 2
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    mg = w.shape[1]
    narrow = precision.narrow_policy(policies)
    t = x.dtype if narrow else np.float64
    size_i, size_k = int(np.prod(spatial, dtype=np.int64)), int(np.prod(geo.kernel, dtype=np.int64))
    xs = x.reshape((N, group, C // group, size_i)).transpose(1, 0, 3, 2).reshape(group, N * size_i, C // group)  # (G, N*I, C/G)
    ws = w.reshape((group, C // group, mg * size_k))  # (G, C/G, M/G * K)
    if narrow:
        precision.refuse_order_dependent_products(spec_id, xs, ws, policies)
        prod = linalg.matmul_narrow(xs, ws) if xs.shape[-1] else np.zeros(xs.shape[:2] + ws.shape[-1:], t)
    else:
        with np.errstate(all="ignore"):  # widened NaNs, inf * 0, sums past float64: IEEE results
            prod = np.matmul(xs.astype(np.float64), ws.astype(np.float64))
    # (G, N, I, M/G, K) -> (N, G, M/G, I, K): one row of scattered terms per output channel
    prod = prod.reshape(group, N, size_i, mg, size_k).transpose(1, 0, 3, 2, 4).reshape(N * group * mg, size_i * size_k)
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in zip(geo.strides, spatial, geo.kernel, geo.dilations)]
    acc = np.zeros((N * group * mg, int(np.prod(full, dtype=np.int64))), dtype=t)
    with np.errstate(all="ignore"):
        np.add.at(acc, (slice(None), scatter_offsets(spatial, geo, full).reshape(-1)), prod.astype(t))
    acc = acc.reshape((N, group * mg) + tuple(full))
    # the output window: begin .. begin + out of the full result, zeros outside it
    lo = [max(0, -b) for b in geo.begin]
    hi = [max(0, b + o - f) for b, o, f in zip(geo.begin, geo.out, full)]
    acc = np.pad(acc, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    cut = tuple(slice(b + l, b + l + o) for b, l, o in zip(geo.begin, lo, geo.out))
    return acc[(slice(None), slice(None)) + cut]
