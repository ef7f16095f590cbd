"""OpenVINO ROIPooling-1. method max: ONNX's MaxRoiPool through the spec's mapping (Caffe's RoI max
pooling). method bilinear: the box corners normalised to [0, 1] of the map's (H - 1) x (W - 1)
extent, pooled_h x pooled_w points spread from corner to corner (the last exactly on the far corner,
one point at the centre where a side pools to 1), each read by bilinear interpolation, a point
outside the map 0 (OpenVINO's reference; TensorFlow's crop_and_resize)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped


def _points(start: np.ndarray, end: np.ndarray, pooled: int, size: int) -> np.ndarray:
    """(R, pooled) positions along one axis, in pixels."""
    if pooled == 1:
        return (0.5 * (start + end) * (size - 1))[:, None]
    step = (end - start) * (size - 1) / (pooled - 1)
    p = start[:, None] * (size - 1) + np.arange(pooled)[None, :] * step[:, None]
    p[:, -1] = end * (size - 1)
    return p


def _bilinear(x: np.ndarray, rois: np.ndarray, ph: int, pw: int) -> np.ndarray:
    n, c, h, w = x.shape
    r = rois.astype(np.float64)
    batch = r[:, 0].astype(np.int64)
    ys, xs = _points(r[:, 2], r[:, 4], ph, h), _points(r[:, 1], r[:, 3], pw, w)  # (R, PH), (R, PW)
    inside = ((ys >= 0) & (ys <= h - 1))[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :]
    y0 = np.clip(np.floor(ys), 0, h - 1).astype(np.int64)
    x0 = np.clip(np.floor(xs), 0, w - 1).astype(np.int64)
    y1, x1 = np.minimum(np.ceil(ys), h - 1).astype(np.int64), np.minimum(np.ceil(xs), w - 1).astype(np.int64)
    fy, fx = (ys - y0)[:, :, None, None], (xs - x0)[:, None, :, None]
    data = np.moveaxis(x.astype(np.float64), 1, -1)  # (N, H, W, C)
    b = batch[:, None, None]

    def at(yi, xi):
        return data[b, yi[:, :, None], xi[:, None, :]]  # (R, PH, PW, C)

    top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * fx
    bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * fx
    y = np.where(inside[..., None], top + (bottom - top) * fy, 0.0)
    return np.moveaxis(y, -1, 1).astype(x.dtype)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, rois = np.asarray(inputs[0]), np.asarray(inputs[1])
    ph, pw = int(attributes["pooled_h"]), int(attributes["pooled_w"])
    if ph == 0 or pw == 0 or rois.shape[0] == 0:  # a non-negative pooled size: 0 pools to nothing
        return (np.zeros((rois.shape[0], x.shape[1], ph, pw), dtype=x.dtype),)
    if attributes.get("method", "max") == "bilinear":
        with np.errstate(all="ignore"):
            return (_bilinear(x, rois, ph, pw),)
    return mapped.run(spec, [x, rois], attributes, policies)
