"""ONNX DeformConv: Conv whose kernel taps sample X at their regular place plus an offset
(per output position, tap and offset group), by linear interpolation in every spatial axis (2^n
corners, those outside X reading 0: "Sampling locations outside of the padded input tensor gives
zero"), each sample times its mask; then one product per group as Conv (oracle/kernels/conv.py).
N-D; floats computed in float64 and rounded once (the tolerance covers a narrower computation)."""
from __future__ import annotations

import itertools

import numpy as np

from opconform.oracle.kernels import conv, linalg
from opconform.oracle.onnx.conv import with_bias


def run(spec, inputs, attributes, policies):
    x, w, offset = (linalg.widen(np.asarray(v)) for v in inputs[:3])
    b = inputs[3] if len(inputs) > 3 else None
    mask = inputs[4] if len(inputs) > 4 else None
    n_sp = x.ndim - 2
    N, C = x.shape[:2]
    kernel = tuple(int(k) for k in (attributes.get("kernel_shape") or w.shape[2:]))
    og = int(attributes.get("offset_group") or 1)
    win = conv.window(x.shape[2:], kernel, attributes)
    out, spatial = win.out, x.shape[2:]
    kk = int(np.prod(kernel, dtype=np.int64))
    off = offset.reshape((N, og) + kernel + (n_sp,) + out)
    m = np.ones((N, og) + kernel + out) if mask is None else linalg.widen(np.asarray(mask)).reshape((N, og) + kernel + out)
    # per axis: where each tap of each output position samples, (N, og, K.., O..)
    where = []
    for a in range(n_sp):
        shape = [1] * (2 * n_sp)
        shape[a] = kernel[a]
        shape[n_sp + a] = out[a]
        tap = np.arange(kernel[a]) * win.dilations[a]
        start = np.arange(out[a]) * win.strides[a] - win.begin[a]
        base = (tap[:, None] + start[None, :]).reshape(shape)
        where.append(base + np.take(off, a, axis=2 + n_sp))
    lo = [np.floor(p) for p in where]
    frac = [p - f for p, f in zip(where, lo)]
    xg = x.reshape((N, og, C // og, int(np.prod(spatial, dtype=np.int64))))
    steps = np.cumprod((1,) + spatial[::-1][:-1])[::-1]
    n_at = np.arange(N).reshape((N,) + (1,) * (1 + 2 * n_sp))
    g_at = np.arange(og).reshape((1, og) + (1,) * (2 * n_sp))
    sampled = np.zeros((N, og) + kernel + out + (C // og,))
    with np.errstate(all="ignore"):  # the products masked out below are those of elements not read
        for corner in itertools.product((0, 1), repeat=n_sp):  # 2^n corners, not positions
            weight, valid, flat = 1.0, True, 0
            for a, c in enumerate(corner):
                at = lo[a] + c
                weight = weight * (frac[a] if c else 1 - frac[a])
                valid = valid & (at >= 0) & (at < spatial[a])
                flat = flat + np.clip(at, 0, max(spatial[a] - 1, 0)).astype(np.int64) * int(steps[a])
            vals = xg[n_at, g_at, :, flat] if xg.shape[-1] else np.zeros(sampled.shape)
            # a corner outside X, or of weight 0 (a sample exactly on a grid line), adds nothing:
            # not 0 * inf or 0 * NaN of an element the interpolation does not read
            used = valid & (weight != 0)
            sampled += np.where(used[..., None], weight[..., None] * vals, 0.0)
    with np.errstate(all="ignore"):  # an infinite sample times a mask of 0: IEEE's NaN, as the text's product
        sampled *= m[..., None]
    # (N, og, K.., O.., C/og) -> (N, C, O.., K..): the windows Conv multiplies
    order = (0, 1, sampled.ndim - 1) + tuple(range(2 + n_sp, 2 + 2 * n_sp)) + tuple(range(2, 2 + n_sp))
    cols = sampled.transpose(order).reshape((N, C) + out + kernel)
    group = int(attributes.get("group") or 1)
    with np.errstate(all="ignore"):  # inf * 0 and sums past float64: IEEE results
        y = np.matmul(conv.grouped_columns(cols, group), conv.grouped_filters(w, group))
    y = conv.ungrouped(y, N, out)
    return (with_bias(y, b, np.asarray(inputs[0]).dtype, {"intermediate_precision": "wide"}),)
