"""OpenVINO PSROIPooling-1: position-sensitive RoI pooling as OpenVINO's reference computes it (the
document gives only the shapes and R-FCN's reference). average: box corners rounded (half away from
zero), the far ones + 1, scaled; bin (ph, pw) of group_size x group_size averages its pixels of
channel (c_out * group_size + ph) * group_size + pw. bilinear: box corners scaled in [0, 1] of the
map; each output point sums, over spatial_bins_y x spatial_bins_x sub-boxes, the interpolated value
of channel (sub-box index) * output_dim + c_out at a point spread over the sub-box, then divides
by the sub-box count. float64."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def _round(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _average(x, rois, out_dim, group, scale):
    n, c, h, w = x.shape
    out = np.zeros((len(rois), out_dim, group, group))
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sw, sh = _round(x1) * scale, _round(y1) * scale
        bw, bh = ((_round(x2) + 1) * scale - sw) / group, ((_round(y2) + 1) * scale - sh) / group
        for ph in range(group):
            hs = min(int(np.floor(sh + ph * bh)), h - 1)
            he = min(int(np.ceil(sh + (ph + 1) * bh)), h)
            for pw in range(group):
                ws = min(int(np.floor(sw + pw * bw)), w - 1)
                we = min(int(np.ceil(sw + (pw + 1) * bw)), w)
                channels = (np.arange(out_dim) * group + ph) * group + pw
                out[r, :, ph, pw] = x[int(b), channels, hs:he, ws:we].mean(axis=(1, 2))
    return out


def _bilinear(x, rois, out_dim, group, scale, bins_x, bins_y):
    n, c, h, w = x.shape
    out = np.zeros((len(rois), out_dim, group, group))
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sw, sh, ew, eh = x1 * scale, y1 * scale, x2 * scale, y2 * scale
        bw, bh = (ew - sw) / bins_x, (eh - sh) / bins_y
        ws_ = bw * (w - 1) / (group - 1) if group > 1 else 0.0
        hs_ = bh * (h - 1) / (group - 1) if group > 1 else 0.0
        for sby in range(bins_y):
            for sbx in range(bins_x):
                channels = (sby * bins_x + sbx) * out_dim + np.arange(out_dim)
                bx, by = sw + sbx * bw, sh + sby * bh
                g = np.arange(group)
                py = g * hs_ + by * (h - 1) if group > 1 else np.array([(2 * by + bh) * (h - 1) / 2])
                px = g * ws_ + bx * (w - 1) if group > 1 else np.array([(2 * bx + bw) * (w - 1) / 2])
                inside = (py < h)[:, None] & (px < w)[None, :]  # (ph, pw)
                top, left = np.floor(np.clip(py, 0, h - 1)).astype(int), np.floor(np.clip(px, 0, w - 1)).astype(int)
                bottom = np.minimum(np.ceil(np.clip(py, 0, None)), h - 1).astype(int)
                right = np.minimum(np.ceil(np.clip(px, 0, None)), w - 1).astype(int)
                m = x[int(b)][channels]  # (out_dim, H, W)
                fx, fy = (px - left)[None, None, :], (py - top)[None, :, None]
                tl, tr = m[:, top[:, None], left[None, :]], m[:, top[:, None], right[None, :]]
                bl, br = m[:, bottom[:, None], left[None, :]], m[:, bottom[:, None], right[None, :]]
                t, d = tl + (tr - tl) * fx, bl + (br - bl) * fx
                out[r] += np.where(inside[None], t + (d - t) * fy, 0.0)
    return out / (bins_x * bins_y)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, rois = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.float64)
    out_dim, group = int(attributes["output_dim"]), int(attributes.get("group_size", 1))
    scale = float(attributes["spatial_scale"])
    xf = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if attributes.get("mode", "average") == "average":
            y = _average(xf, rois, out_dim, group, scale)
        else:
            y = _bilinear(xf, rois, out_dim, group, scale, int(attributes.get("spatial_bins_x", 1)),
                          int(attributes.get("spatial_bins_y", 1)))
    return (y.astype(x.dtype),)
