"""OpenVINO DeformablePSROIPooling-1: MXNet's DeformablePSROIPooling with pooled_size = group_size
(the document names it as the operation's reference, and OpenVINO's reference follows it). The box
corners are rounded (half away from zero), the far ones + 1, scaled, shifted by -0.5; the box at
least 0.1 wide and high, cut into group_size x group_size bins. Bin (ph, pw) of output channel c
reads input channel (c * group_size + ph) * group_size + pw; its top-left corner moves by
offsets[roi, 2k (x) / 2k + 1 (y), ph * part_size // group_size, pw * part_size // group_size] *
trans_std times the box's width (height), k = c // (output_dim / classes). The bin averages the
bilinear reads at the top-left corners of its spatial_bins_y x spatial_bins_x sub-bins, a corner
more than half a pixel off the map left out (0 where all are). Vectorized over ROIs in chunks."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion

_CHUNK = 1 << 22  # sample positions per chunk of ROIs: bounds the temporaries


def _round(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + v.dtype.type(0.5))


def _bins(rois, offsets, attrs, ct, classes):
    """Top-left corners of every bin per offset class, (R, K, G, G) each (K = 1 without offsets:
    every output channel's bins lie alike), and the bin extents (R,)."""
    g, scale = int(attrs.get("group_size", 1)), ct(attrs["spatial_scale"])
    r = rois.astype(ct)
    half = ct(0.5)
    x1, y1 = _round(r[:, 1]) * scale - half, _round(r[:, 2]) * scale - half
    x2, y2 = (_round(r[:, 3]) + ct(1)) * scale - half, (_round(r[:, 4]) + ct(1)) * scale - half
    width, height = np.maximum(x2 - x1, ct(0.1)), np.maximum(y2 - y1, ct(0.1))
    bw, bh = width / ct(g), height / ct(g)
    p = np.arange(g).astype(ct)
    bx = np.broadcast_to((x1[:, None] + p[None, :] * bw[:, None])[:, None, None, :], (len(r), classes, g, g))
    by = np.broadcast_to((y1[:, None] + p[None, :] * bh[:, None])[:, None, :, None], (len(r), classes, g, g))
    if offsets is not None:
        part, std = int(attrs.get("part_size", 1)), ct(attrs.get("trans_std", 1.0))
        cell = np.arange(g) * part // g
        off = offsets.astype(ct)[:, :, cell[:, None], cell[None, :]]  # (R, 2K, G, G)
        bx = bx + off[:, 0::2] * std * width[:, None, None, None]
        by = by + off[:, 1::2] * std * height[:, None, None, None]
    return bx, by, bw, bh


def _pool(x, flat, batch, bx, by, bw, bh, attrs, ct, c_out):
    """Per ROI, output channel and bin the mean of its sub-bins' bilinear reads. Positions, weights
    and masks are computed per offset class; only the reads run over every output channel."""
    n, c, h, w = x.shape
    g = int(attrs.get("group_size", 1))
    nx, ny = int(attrs.get("spatial_bins_x", 1)), int(attrs.get("spatial_bins_y", 1))
    classes = bx.shape[1]
    iy, ix = np.arange(ny).astype(ct), np.arange(nx).astype(ct)
    sx = bx[..., None, None] + ix[None, None, None, None, None, :] * (bw / ct(nx))[:, None, None, None, None, None]
    sy = by[..., None, None] + iy[None, None, None, None, :, None] * (bh / ct(ny))[:, None, None, None, None, None]
    sx, sy = np.broadcast_arrays(sx, sy)  # (R, K, G, G, ny, nx)
    inside = (sx >= -0.5) & (sx <= w - 0.5) & (sy >= -0.5) & (sy <= h - 0.5)
    px, py = np.clip(sx, 0, w - 1).astype(np.float64), np.clip(sy, 0, h - 1).astype(np.float64)
    left, top = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
    right, bottom = np.ceil(px).astype(np.int64), np.ceil(py).astype(np.int64)
    fx, fy = np.abs(px - left), np.abs(py - top)
    count = inside.sum(axis=(-2, -1), keepdims=True)
    share = np.where(inside, 1.0, 0.0) / np.maximum(count, 1)  # the mean over the sub-bins inside
    # the four corners of every sub-bin side by side: (R, K, G, G, S) with S = ny * nx * 4
    where = np.stack([top * w + left, top * w + right, bottom * w + left, bottom * w + right], axis=-1)
    weight = np.stack([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy], axis=-1) * share[..., None]
    where, weight = where.reshape(where.shape[:4] + (-1,)), weight.reshape(weight.shape[:4] + (-1,))
    if classes > 1:  # each output channel reads where its class's offsets moved its bins
        cls = np.arange(c_out) // max(c_out // classes, 1)
        where, weight = where[:, cls], weight[:, cls]
    channel = ((np.arange(c_out)[:, None, None] * g + np.arange(g)[None, :, None]) * g + np.arange(g)[None, None, :])
    plane = ((batch[:, None, None, None] * c + channel[None]) * (h * w))[..., None]  # (R, C_out, G, G, 1)
    reads = np.take(flat, plane + where)  # (R, C_out, G, G, S)
    # a matrix product per bin: no (R, C_out, G, G, S) product of weights and reads is held
    return (reads[..., None, :] @ weight[..., :, None])[..., 0, 0]


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, rois = np.asarray(inputs[0]), np.asarray(inputs[1])
    offsets = np.asarray(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else None
    ct = np.float32 if policies.get("coordinate_precision", "float64") == "float32" else np.float64
    c_out, g = int(attributes["output_dim"]), int(attributes.get("group_size", 1))
    samples = max(c_out * g * g * int(attributes.get("spatial_bins_x", 1)) * int(attributes.get("spatial_bins_y", 1)), 1)
    step = max(_CHUNK // samples, 1)
    classes = offsets.shape[1] // 2 if offsets is not None else 1
    out = np.zeros((len(rois), c_out, g, g))
    flat = x.astype(np.float64).reshape(-1)
    with np.errstate(all="ignore"):
        for start in range(0, len(rois), step):
            part = slice(start, start + step)
            batch = np.trunc(rois[part, 0].astype(np.float64)).astype(np.int64)
            bx, by, bw, bh = _bins(rois[part], None if offsets is None else offsets[part], attributes, ct, classes)
            out[part] = _pool(x, flat, batch, bx, by, bw, bh, attributes, ct, c_out)
    return (out.astype(x.dtype),)
