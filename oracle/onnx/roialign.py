"""ONNX RoiAlign (10, 16, 22): each RoI is cut into output_height x output_width bins, each bin
sampled on a regular grid (sampling_ratio points per side, or ceil(roi size / bins)), each sample
read by bilinear interpolation and the samples averaged or maximized (Mask R-CNN; the Detectron
kernel that onnx.reference and onnxruntime port: a sample more than one pixel outside the map
reads 0, one within a pixel of it reads the edge). Every RoI is computed at once on the largest
sample grid, the samples past a RoI's own grid masked out."""
from __future__ import annotations

import numpy as np


def _axis(start: np.ndarray, size: np.ndarray, bins: int, grid: np.ndarray, length: int, dtype):
    """Per RoI, bin and grid position along one axis: the two pixel indices read and their weights
    (zero for a sample more than one pixel outside), and which grid positions the RoI uses."""
    g = int(max(grid.max(initial=0), 1))
    b = np.arange(bins, dtype=dtype)[None, :, None]
    k = np.arange(g, dtype=dtype)[None, None, :]
    step = (size / bins).astype(dtype)[:, None, None]
    n = np.maximum(grid, 1).astype(dtype)[:, None, None]
    pos = (start.astype(dtype)[:, None, None] + b * step + (k + dtype(0.5)) * step / n).astype(np.float64)
    used = np.broadcast_to(k < grid[:, None, None], pos.shape)
    outside = (pos < -1.0) | (pos > length)
    p = np.maximum(pos, 0)
    low = np.floor(p).astype(np.int64)
    top = low >= length - 1
    low = np.where(top, length - 1, low)
    high = np.where(top, length - 1, low + 1)
    frac = np.where(top, 0.0, p - low)
    weights = np.stack([1 - frac, frac], axis=-1) * ~outside[..., None]
    return np.stack([low, high], axis=-1), weights, used


def run(spec, inputs, attributes, policies):
    x, rois, batch = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2]).astype(np.int64)
    ph, pw = int(attributes["output_height"]), int(attributes["output_width"])
    ratio = int(attributes["sampling_ratio"])
    dtype = np.float32 if policies.get("coordinate_precision") == "float32" else np.float64
    half = attributes.get("coordinate_transformation_mode", "output_half_pixel") == "half_pixel"
    scale = dtype(attributes["spatial_scale"])
    r = rois.astype(dtype) * scale - dtype(0.5 if half else 0.0)
    start_w, start_h, end_w, end_h = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
    width, height = end_w - start_w, end_h - start_h
    if not half:  # the backward-compatible mode keeps every RoI at least one pixel wide
        width, height = np.maximum(width, dtype(1)), np.maximum(height, dtype(1))
    grid_h = np.full(len(r), ratio) if ratio > 0 else np.ceil(height / dtype(ph)).astype(np.int64)
    grid_w = np.full(len(r), ratio) if ratio > 0 else np.ceil(width / dtype(pw)).astype(np.int64)
    grid_h, grid_w = np.maximum(grid_h, 0), np.maximum(grid_w, 0)
    yi, yw, yused = _axis(start_h, height, ph, grid_h, x.shape[2], dtype)  # (R, PH, Gh, 2)
    xi, xw, xused = _axis(start_w, width, pw, grid_w, x.shape[3], dtype)   # (R, PW, Gw, 2)
    data = x.astype(np.float64)
    nb = batch[:, None, None, None, None, None, None]
    # (R, PH, Gh, 2, PW, Gw, 2, C): every corner of every sample of every bin
    corners = np.moveaxis(data, 1, -1)[nb, yi[:, :, :, :, None, None, None], xi[:, None, None, None, :, :, :]]
    w = (yw[:, :, :, :, None, None, None] * xw[:, None, None, None, :, :, :])[..., None]
    used = yused[:, :, :, None, None] & xused[:, None, None, :, :]  # (R, PH, Gh, PW, Gw)
    if attributes["mode"] == "avg":
        samples = (w * corners).sum(axis=(3, 6))  # (R, PH, Gh, PW, Gw, C)
        count = np.maximum(grid_h * grid_w, 1).astype(np.float64)[:, None, None, None, None, None]
        y = (np.where(used[..., None], samples, 0.0) / count).sum(axis=(2, 4))
    else:
        if policies.get("max_sample", "weighted_corner") == "interpolated":
            samples = (w * corners).sum(axis=(3, 6))
        else:  # the largest weighted corner of each sample (onnxruntime, onnx.reference)
            samples = (w * corners).max(axis=(3, 6))
        y = np.where(used[..., None], samples, -np.inf).max(axis=(2, 4), initial=-np.inf)
        y = np.where(np.isneginf(y), 0.0, y)  # a bin with no sample
    return (np.moveaxis(y, -1, 1).astype(x.dtype),)
