"""ONNX MaxRoiPool: per RoI [batch_id, x1, y1, x2, y2] (scaled by spatial_scale, rounded to whole
pixels), the RoI split into pooled_shape bins of (RoI extent + 1) / pooled size pixels, each bin
from floor(p * bin) to ceil((p + 1) * bin), shifted by the RoI start and clipped to the image, and
the maximum of each bin (0 for a bin the clipping empties), as Caffe's ROIPooling and onnxruntime
(roi_pool.cc) compute it: masks per RoI and bin, one reduction, no loop over positions.

Policy rounding: RoI coordinates rounded half away from zero (C's round: Caffe, onnxruntime) or
half to even. NaN in X: policy nan (propagate / ignored), as MaxPool."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import linalg


def _round(v: np.ndarray, how: str) -> np.ndarray:
    return np.rint(v) if how == "half_to_even" else np.sign(v) * np.floor(np.abs(v) + 0.5)


def _bins(start: np.ndarray, end: np.ndarray, pooled: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(R, pooled) first and one-past-last pixel of each bin along one axis, clipped to [0, size]."""
    extent = np.maximum(end - start + 1, 1)
    step = extent / pooled
    p = np.arange(pooled)
    lo = np.floor(p[None, :] * step[:, None]) + start[:, None]
    hi = np.ceil((p[None, :] + 1) * step[:, None]) + start[:, None]
    return np.clip(lo, 0, size), np.clip(hi, 0, size)


def run(spec, inputs, attributes, policies):
    x, rois = np.asarray(inputs[0]), linalg.widen(np.asarray(inputs[1]))
    ph, pw = (int(v) for v in attributes["pooled_shape"])
    scale = float(attributes["spatial_scale"])
    H, W = x.shape[2:]
    batch = rois[:, 0].astype(np.int64)
    how = policies["rounding"]
    x1, y1, x2, y2 = (_round(rois[:, k] * scale, how) for k in (1, 2, 3, 4))
    h_lo, h_hi = _bins(y1, y2, ph, H)
    w_lo, w_hi = _bins(x1, x2, pw, W)
    hs, ws = np.arange(H), np.arange(W)
    in_h = (hs[None, None, :] >= h_lo[..., None]) & (hs[None, None, :] < h_hi[..., None])  # (R, PH, H)
    in_w = (ws[None, None, :] >= w_lo[..., None]) & (ws[None, None, :] < w_hi[..., None])  # (R, PW, W)
    mask = in_h[:, :, None, :, None] & in_w[:, None, :, None, :]  # (R, PH, PW, H, W)
    vals = linalg.widen(x)[batch][:, :, None, None, :, :]  # (R, C, 1, 1, H, W)
    inside = mask[:, None]
    filled = np.where(inside, vals, -np.inf)
    with np.errstate(invalid="ignore"):
        if policies["nan"] == "propagate":
            y = np.max(filled, axis=(-2, -1), initial=-np.inf)
        else:
            flat = filled.reshape(filled.shape[:4] + (H * W,))
            y = np.fmax.reduce(flat, axis=-1) if H * W else np.full(filled.shape[:4], -np.inf)
            y = np.where(np.all(np.isnan(filled) | ~inside, axis=(-2, -1)) & np.any(inside, axis=(-2, -1)), np.nan, y)
    y = np.where(np.any(mask, axis=(-2, -1))[:, None], y, 0.0)
    return (linalg.narrow(y, x.dtype),)
