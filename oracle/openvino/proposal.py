"""OpenVINO Proposal-4: Faster R-CNN's region proposals. Anchors from base_size, ratio (outer) and
scale (inner), pinned to every feature-map point at feat_stride, moved by the deltas (centre by
dx * width, size by exp(dw)), clipped, scored by the foreground half of class_probs, small boxes
filtered, sorted by score, cut to pre_nms_topn, greedy NMS at nms_thresh, cut to post_nms_topn; rows
[batch, x0, y0, x1, y1] and their scores, padded to post_nms_topn per batch with the first padding
row's batch index -1.

The document lists the steps without their formulas; the anchors, the decoding, the +1 pixel
widths of Caffe (framework "") and TensorFlow's unrounded, centred, clipped anchors with x read from
the row index are Caffe's and OpenVINO's, as the text's 'like in Caffe' / 'like in the TensorFlow
Object Detection API' point to; whether TensorFlow's first coordinate is bounded by the image width
or height is the policy tensorflow_axes. Computed in float64. Equal scores whose order changes the output,
and an IoU or box size within the element type's rounding of its threshold, are undefined (the
oracle-side relations ties_unordered and threshold_within_rounding)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.kernels.fp_extremes import extremes_are_data

# how far from a threshold a computed IoU or size may lie and still be compared as the text says
_MARGIN = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def anchors(attributes: dict) -> np.ndarray:
    """(K, 4) anchors [x0, y0, x1, y1] around the origin, ratio-major."""
    tf = attributes.get("framework", "") == "tensorflow"
    off = 0.0 if tf else 1.0
    base = float(attributes["base_size"])
    ratios = np.asarray(attributes["ratio"], np.float64)[:, None]
    scales = np.asarray(attributes["scale"], np.float64)[None, :]
    w = np.sqrt(base * base / ratios)
    h = w * ratios
    if not tf:  # Caffe rounds the ratio's width, then the height from it (half away from zero)
        w = np.floor(w + 0.5)
        h = np.floor(w * ratios + 0.5)
    half_w, half_h = 0.5 * (w * scales - off), 0.5 * (h * scales - off)
    centre = 0.0 if tf else 0.5 * (base - off)  # TensorFlow's anchors centred on the point
    return np.stack(np.broadcast_arrays(centre - half_w, centre - half_h, centre + half_w, centre + half_h), -1).reshape(-1, 4)


def decode(attributes: dict, probs: np.ndarray, deltas: np.ndarray, img_h: float, img_w: float) -> tuple[np.ndarray, ...]:
    """One batch item's boxes (N, 4) and foreground scores (N,), ordered (h, w, anchor)."""
    tf = attributes.get("framework", "") == "tensorflow"
    off = 0.0 if tf else 1.0
    k = probs.shape[0] // 2
    _, height, width = probs.shape
    rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    stride = float(attributes["feat_stride"])
    x = ((rows if tf else cols) * stride)[:, :, None]
    y = ((cols if tf else rows) * stride)[:, :, None]
    a = anchors(attributes)
    x0, y0, x1, y1 = (x + a[:, 0], y + a[:, 1], x + a[:, 2], y + a[:, 3])
    if tf:
        x0, x1 = np.clip(x0, 0, img_w), np.clip(x1, 0, img_w)
        y0, y1 = np.clip(y0, 0, img_h), np.clip(y1, 0, img_h)
    d = deltas.reshape(k, 4, height, width).transpose(2, 3, 0, 1)  # (h, w, anchor, 4)
    dx = d[..., 0] / float(attributes.get("box_coordinate_scale", 1.0))
    dy = d[..., 1] / float(attributes.get("box_coordinate_scale", 1.0))
    dw = d[..., 2] / float(attributes.get("box_size_scale", 1.0))
    dh = d[..., 3] / float(attributes.get("box_size_scale", 1.0))
    ww, hh = x1 - x0 + off, y1 - y0 + off
    cx, cy = dx * ww + x0 + 0.5 * ww, dy * hh + y0 + 0.5 * hh
    pw, ph = np.exp(dw) * ww, np.exp(dh) * hh
    boxes = np.stack([cx - 0.5 * pw, cy - 0.5 * ph, cx + 0.5 * pw, cy + 0.5 * ph], -1)
    if attributes.get("clip_before_nms", True):
        boxes = np.clip(boxes, 0, np.array([img_w, img_h, img_w, img_h]) - off)
    scores = probs[k:].transpose(1, 2, 0)
    return boxes.reshape(-1, 4), scores.reshape(-1)


def iou_matrix(boxes: np.ndarray, off: float) -> np.ndarray:
    """IoU of every pair with widths x1 - x0 + off; boxes that do not overlap have 0."""
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    iw = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :])
    ih = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :])
    meets = (iw >= 0) & (ih >= 0)
    inter = np.maximum(iw + off, 0) * np.maximum(ih + off, 0)
    area = (x1 - x0 + off) * (y1 - y0 + off)
    with np.errstate(all="ignore"):
        return np.where(meets, inter / (area[:, None] + area[None, :] - inter), 0.0)


def greedy_nms(overlap: np.ndarray, threshold: float, limit: int, eta: float = 1.0) -> list[int]:
    """Indices kept in order: each box whose IoU with every kept one is at most the threshold, up to
    limit; with eta < 1 the threshold, while above 0.5, is multiplied by eta after each kept box
    (adaptive NMS: a later box is judged by the threshold of its turn)."""
    kept: list[int] = []
    for i in range(len(overlap)):
        if kept and np.any(overlap[i, kept] > threshold):
            continue
        kept.append(i)
        if len(kept) == limit:
            break
        if eta < 1 and threshold > 0.5:
            threshold *= eta
    return kept


def refuse_near_threshold(spec: SpecVersion, boxes: np.ndarray, overlap: np.ndarray, threshold: float, margin: float) -> None:
    """Raise threshold_within_rounding where two overlapping, unequal boxes have an IoU within margin of
    the threshold (equal boxes have IoU 1, boxes apart 0, in any type)."""
    near = np.abs(overlap - threshold) <= margin
    near &= ~(boxes[:, None, :] == boxes[None, :, :]).all(-1)
    near &= overlap > 0
    if near.any():
        raise RelationBroken(spec.id, "threshold_within_rounding", "undefined",
                             "an IoU lies within the element type's rounding of the NMS threshold")


def margin_of(dtype: np.dtype) -> float:
    """How far from a threshold a computed IoU or size may lie and still be compared as the text says."""
    return _MARGIN.get(np.dtype(dtype).name, 1e-5)


def _select(spec: SpecVersion, attributes: dict, policies: dict, boxes: np.ndarray, scores: np.ndarray,
            small: np.ndarray, margin: float, ties_last: bool) -> tuple[np.ndarray, np.ndarray]:
    off = 0.0 if attributes.get("framework", "") == "tensorflow" else 1.0
    if policies.get("small_boxes", "zero_score") == "dropped":
        index = np.flatnonzero(~small)
    else:
        index, scores = np.arange(len(scores)), np.where(small, 0.0, scores)
    key = index if not ties_last else -index
    order = index[np.lexsort((key, -scores[index]))][: int(attributes["pre_nms_topn"])]
    overlap = iou_matrix(boxes[order], off)
    refuse_near_threshold(spec, boxes[order], overlap, float(attributes["nms_thresh"]), margin)
    kept = order[greedy_nms(overlap, float(attributes["nms_thresh"]), int(attributes["post_nms_topn"]))]
    return boxes[kept], scores[kept]


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    probs, deltas, image = (wide(np.asarray(x)) for x in inputs)
    dtype = np.asarray(inputs[0]).dtype
    margin = margin_of(dtype)
    img_h, img_w = float(image[0]), float(image[1])
    scale_h = float(image[2])
    scale_w = float(image[3]) if image.size > 3 else scale_h
    if attributes.get("framework", "") == "tensorflow" and policies.get("tensorflow_axes") == "yx":
        # the first coordinate, read from the row index, is TensorFlow's y: bounded by the image height
        img_h, img_w, scale_h, scale_w = img_w, img_h, scale_w, scale_h
    off = 0.0 if attributes.get("framework", "") == "tensorflow" else 1.0
    post = int(attributes["post_nms_topn"])
    rois, out_scores = [], []
    for b in range(probs.shape[0]):
        boxes, scores = decode(attributes, probs[b], deltas[b], img_h, img_w)
        bw, bh = boxes[:, 2] - boxes[:, 0] + off, boxes[:, 3] - boxes[:, 1] + off
        min_w, min_h = float(attributes["min_size"]) * scale_w, float(attributes["min_size"]) * scale_h
        if np.any(np.abs(bw - min_w) <= margin * max(min_w, 1.0)) or np.any(np.abs(bh - min_h) <= margin * max(min_h, 1.0)):
            raise RelationBroken(spec.id, "threshold_within_rounding", "undefined",
                                 "a box's size lies within the element type's rounding of min_size")
        small = (bw < min_w) | (bh < min_h)
        picked = _select(spec, attributes, policies, boxes, scores, small, margin, False)
        if any(not np.array_equal(a, b_) for a, b_ in zip(picked, _select(spec, attributes, policies, boxes, scores,
                                                                          small, margin, True))):
            raise RelationBroken(spec.id, "ties_unordered", "undefined",
                                 "equal scores whose order changes the proposals kept or their order")
        kept, kept_scores = picked
        if attributes.get("clip_after_nms", False):
            kept = np.clip(kept, 0, np.array([img_w, img_h, img_w, img_h]))
        if attributes.get("normalize", False):
            kept = kept / np.array([img_w, img_h, img_w, img_h])
        item = np.zeros((post, 5))
        item[: len(kept), 0], item[: len(kept), 1:] = b, kept
        if len(kept) < post:
            item[len(kept), 0] = -1  # the valid proposals terminated with a single -1
        rois.append(item)
        out_scores.append(np.concatenate([kept_scores, np.zeros(post - len(kept))]))
    with np.errstate(all="ignore"):
        return np.concatenate(rois).astype(dtype), np.concatenate(out_scores).astype(dtype)
