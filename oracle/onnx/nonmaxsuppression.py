"""ONNX NonMaxSuppression (10, 11): per batch and class, the boxes above the score threshold in
descending score order, each kept unless its IoU with a box already kept is strictly greater than
iou_threshold, at most max_output_boxes_per_class of them. The IoU of every pair of boxes is one
array per batch; the greedy pass loops over rank positions (at most the number of boxes), each step
deciding that position for every batch and class at once."""
from __future__ import annotations

import numpy as np


def _scalar(x, default):
    return default if x is None or np.asarray(x).size == 0 else np.asarray(x).reshape(-1)[0]


def corners(boxes: np.ndarray, center_point_box: int) -> tuple[np.ndarray, ...]:
    """(y_min, x_min, y_max, x_max) of each box: [y1, x1, y2, x2] of any diagonal pair of corners,
    or [x_center, y_center, width, height]."""
    if center_point_box:
        xc, yc, w, h = np.moveaxis(boxes, -1, 0)
        return yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2
    y1, x1, y2, x2 = np.moveaxis(boxes, -1, 0)
    return np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)


def iou(boxes: np.ndarray, center_point_box: int, dtype=np.float64) -> np.ndarray:
    """(B, S, S): intersection over union of every pair of a batch's boxes, computed in dtype; 0
    where the boxes do not overlap or a box has no area (no IoU to exceed a threshold)."""
    y0, x0, y1, x1 = (c.astype(dtype) for c in corners(boxes.astype(dtype), center_point_box))
    iy = np.minimum(y1[:, :, None], y1[:, None, :]) - np.maximum(y0[:, :, None], y0[:, None, :])
    ix = np.minimum(x1[:, :, None], x1[:, None, :]) - np.maximum(x0[:, :, None], x0[:, None, :])
    inter = ix * iy
    area = (x1 - x0) * (y1 - y0)
    union = area[:, :, None] + area[:, None, :] - inter
    ok = (ix > 0) & (iy > 0) & (area[:, :, None] > 0) & (area[:, None, :] > 0) & (union > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, inter / np.where(ok, union, 1), 0).astype(dtype)


def run(spec, inputs, attributes, policies):
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    limit = max(int(_scalar(inputs[2] if len(inputs) > 2 else None, 0)), 0)
    threshold = _scalar(inputs[3] if len(inputs) > 3 else None, np.float32(0))
    score_min = inputs[4] if len(inputs) > 4 else None
    b, c, s = scores.shape
    dtype = np.float32 if policies.get("iou_precision") == "float32" else np.float64
    overlap = iou(boxes, attributes["center_point_box"], dtype) > dtype(threshold)  # (B, S, S)
    # rank positions: descending score, ties by box index (the policy's order)
    index = np.arange(s)
    tie = index if policies.get("tie_order", "lower_index_first") == "lower_index_first" else -index
    order = np.lexsort((np.broadcast_to(tie, scores.shape), -scores), axis=-1)  # (B, C, S)
    ranked = np.take_along_axis(scores, order, axis=-1)
    candidate = np.ones(scores.shape, dtype=bool) if score_min is None or np.asarray(score_min).size == 0 else \
        ranked >= _scalar(score_min, 0)
    kept = np.zeros(scores.shape, dtype=bool)
    count = np.zeros((b, c), dtype=np.int64)
    over = np.take_along_axis(np.take_along_axis(overlap[:, None], order[..., :, None], axis=2),
                              order[..., None, :], axis=3)  # (B, C, S, S) in rank order
    for k in range(s):
        suppressed = (kept[..., :k] & over[..., k, :k]).any(axis=-1)
        take = candidate[..., k] & ~suppressed & (count < limit)
        kept[..., k] = take
        count += take
    bi, ci, ki = np.nonzero(kept)
    out = np.stack([bi, ci, order[bi, ci, ki]], axis=1).astype(np.int64).reshape(-1, 3)
    if policies.get("output_order", "selection") == "index":
        out = out[np.lexsort((out[:, 2], out[:, 1], out[:, 0]))]
    return (out,)
