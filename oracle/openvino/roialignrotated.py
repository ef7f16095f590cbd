"""OpenVINO ROIAlignRotated-15: each box [center_x, center_y, width, height, angle] scaled by
spatial_scale (its centre shifted by -0.5), cut into pooled_h x pooled_w bins in its own frame,
each bin sampled on a regular grid (sampling_ratio points a side, or ceil(bin size)), every sample
rotated by the angle about the centre (y = py cos - px sin + cy, x = py sin + px cos + cx, the angle
negated with clockwise_mode, as OpenVINO's reference and Detectron2 compute it), read by bilinear
interpolation (0 more than one pixel outside the map, the edge pixel within one) and averaged.
float64, rounded once."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def _bilinear(m: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """m (C, H, W) read at the points y, x (any shape): (..., C); 0 for a point more than one pixel outside."""
    h, w = m.shape[1:]
    outside = (y < -1) | (y > h) | (x < -1) | (x > w)
    y, x = np.maximum(y, 0), np.maximum(x, 0)
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    ty, tx = y0 >= h - 1, x0 >= w - 1
    y0, x0 = np.where(ty, h - 1, y0), np.where(tx, w - 1, x0)
    y1, x1 = np.where(ty, h - 1, y0 + 1), np.where(tx, w - 1, x0 + 1)
    fy, fx = np.where(ty, 0.0, y - y0)[..., None], np.where(tx, 0.0, x - x0)[..., None]
    mt = np.moveaxis(m, 0, -1)
    v = (mt[y0, x0] * (1 - fy) * (1 - fx) + mt[y0, x1] * (1 - fy) * fx
         + mt[y1, x0] * fy * (1 - fx) + mt[y1, x1] * fy * fx)
    return np.where(outside[..., None], 0.0, v)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, rois = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.float64)
    batch = np.asarray(inputs[2]).astype(np.int64)
    ph, pw = int(attributes["pooled_h"]), int(attributes["pooled_w"])
    ratio, scale = int(attributes["sampling_ratio"]), float(attributes["spatial_scale"])
    data = x.astype(np.float64)
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    with np.errstate(all="ignore"):
        for r, (cx, cy, bw, bh, angle) in enumerate(rois):
            cx, cy, bw, bh = cx * scale - 0.5, cy * scale - 0.5, bw * scale, bh * scale
            theta = -angle if attributes.get("clockwise_mode", False) else angle
            cos, sin = np.cos(theta), np.sin(theta)
            bin_w, bin_h = bw / pw, bh / ph
            gx = ratio if ratio > 0 else int(np.ceil(bin_w))
            gy = ratio if ratio > 0 else int(np.ceil(bin_h))
            if gx <= 0 or gy <= 0:
                continue  # no sample: the bin's sum is 0
            # pre-rotation sample coordinates: (PH, GY) along y, (PW, GX) along x
            py = -bh / 2 + np.arange(ph)[:, None] * bin_h + (np.arange(gy)[None, :] + 0.5) * bin_h / gy
            px = -bw / 2 + np.arange(pw)[:, None] * bin_w + (np.arange(gx)[None, :] + 0.5) * bin_w / gx
            PY, PX = py[:, :, None, None], px[None, None, :, :]  # (PH, GY, PW, GX)
            ys, xs = PY * cos - PX * sin + cy, PY * sin + PX * cos + cx
            v = _bilinear(data[batch[r]], ys, xs)  # (PH, GY, PW, GX, C)
            out[r] = np.moveaxis(v.sum(axis=(1, 3)) / (gx * gy), -1, 0)
    return (out.astype(x.dtype),)
