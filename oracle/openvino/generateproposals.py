"""OpenVINO GenerateProposals-9: per image, every anchor [H, W, A, 4] moved by its deltas
[dx, dy, log(dw), log(dh)] (Detectron's transform: log sizes capped at log(1000 / 16)), clipped to
the image, sorted by score, cut to pre_nms_count, boxes narrower or lower than min_size removed,
NMS with the adaptive threshold, cut to post_nms_count; the images' proposals concatenated with
their count per image.

normalized false counts a box's width as x1 - x0 + 1 (pixels, Detectron's); true as x1 - x0. The
document gives the steps, not the transform, which is Detectron's and OpenVINO's. Computed in
float64. Equal scores whose order changes the output (the text: order of pairs with equal scores
is undefined), and an IoU or box size within the element type's rounding of its threshold, are
undefined (oracle-side relations)."""
from __future__ import annotations

import math

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.proposal import greedy_nms, iou_matrix, margin_of, refuse_near_threshold

_NUM_TYPES = {"i64": np.int64, "i32": np.int32}
_MAX_LOG_SIZE = math.log(1000.0 / 16.0)


def transform(anchors: np.ndarray, deltas: np.ndarray, off: float, img_h: float, img_w: float) -> np.ndarray:
    """(N, 4) boxes from (N, 4) anchors and (N, 4) deltas, clipped to [0, image - off]."""
    ww = anchors[:, 2] - anchors[:, 0] + off
    hh = anchors[:, 3] - anchors[:, 1] + off
    cx = deltas[:, 0] * ww + anchors[:, 0] + 0.5 * ww
    cy = deltas[:, 1] * hh + anchors[:, 1] + 0.5 * hh
    pw = np.exp(np.minimum(deltas[:, 2], _MAX_LOG_SIZE)) * ww
    ph = np.exp(np.minimum(deltas[:, 3], _MAX_LOG_SIZE)) * hh
    boxes = np.stack([cx - 0.5 * pw, cy - 0.5 * ph, cx + 0.5 * pw - off, cy + 0.5 * ph - off], -1)
    return np.clip(boxes, 0, np.array([img_w, img_h, img_w, img_h]) - off)


def _image(spec: SpecVersion, attributes: dict, policies: dict, info: np.ndarray, anchors: np.ndarray,
           deltas: np.ndarray, scores: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    off = 0.0 if attributes.get("normalized", True) else 1.0
    a = anchors.shape[2]
    boxes = transform(anchors.reshape(-1, 4), deltas.reshape(a, 4, -1).transpose(2, 0, 1).reshape(-1, 4),
                      off, float(info[0]), float(info[1]))
    score = scores.reshape(a, -1).T.reshape(-1)  # (h, w, anchor) as the anchors
    scaled = policies.get("min_size_scaled", "scaled") == "scaled"
    scale_h = float(info[2]) if scaled else 1.0
    scale_w = float(info[3] if info.size > 3 else info[2]) if scaled else 1.0
    bw, bh = boxes[:, 2] - boxes[:, 0] + off, boxes[:, 3] - boxes[:, 1] + off
    min_w, min_h = float(attributes["min_size"]) * scale_w, float(attributes["min_size"]) * scale_h
    # a size equal to min_size (a box clipped flat against min_size 0) is exact in any type
    near_w = (np.abs(bw - min_w) <= margin * max(min_w, 1.0)) & (bw != min_w)
    near_h = (np.abs(bh - min_h) <= margin * max(min_h, 1.0)) & (bh != min_h)
    if near_w.any() or near_h.any():
        raise RelationBroken(spec.id, "threshold_within_rounding", "undefined",
                             "a box's size lies within the element type's rounding of min_size")
    big = (bw >= min_w) & (bh >= min_h)
    picked = []
    for ties_last in (False, True):
        index = np.arange(len(score))
        order = index[np.lexsort((-index if ties_last else index, -score))][: int(attributes["pre_nms_count"])]
        order = order[big[order]]
        overlap = iou_matrix(boxes[order], off)
        refuse_near_threshold(spec, boxes[order], overlap, float(attributes["nms_threshold"]), margin)
        kept = order[greedy_nms(overlap, float(attributes["nms_threshold"]), int(attributes["post_nms_count"]),
                                float(attributes.get("nms_eta", 1.0)))]
        picked.append(kept)
    if not np.array_equal(picked[0], picked[1]):
        raise RelationBroken(spec.id, "ties_unordered", "undefined",
                             "order of pairs with equal scores is undefined: it changes the proposals kept or their order")
    return boxes[picked[0]], score[picked[0]]


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    info, anchors, deltas, scores = (wide(np.asarray(x)) for x in inputs)
    dtype = np.asarray(inputs[1]).dtype
    margin = margin_of(dtype)
    rois, kept_scores, counts = [], [], []
    for b in range(scores.shape[0]):
        if int(attributes["post_nms_count"]) == 0 or int(attributes["pre_nms_count"]) == 0:
            boxes, score = np.zeros((0, 4)), np.zeros(0)
        else:
            boxes, score = _image(spec, attributes, policies, info[b], anchors, deltas[b], scores[b], margin)
        rois.append(boxes)
        kept_scores.append(score)
        counts.append(len(score))
    with np.errstate(all="ignore"):
        return (np.concatenate(rois).reshape(-1, 4).astype(dtype), np.concatenate(kept_scores).astype(dtype),
                np.asarray(counts, dtype=_NUM_TYPES[attributes.get("roi_num_type", "i64")]))
