"""OpenVINO ExperimentalDetectronGenerateProposalsSingleImage-6: Detectron's proposal generation
for one image, which the document lists step by step without formulas (OpenVINO's reference
follows Detectron). Proposals in the anchors' (h, w, channel) order: each anchor moved by its
deltas (centre by dx * width, size by exp(min(d_log, log(1000 / 16))), Detectron's clip, widths
x1 - x0 + 1), clipped to [0, image - 1]; boxes narrower or lower than min_size dropped or scored 0
(policy small_boxes); sorted by score, cut to pre_nms_count; greedy NMS at nms_threshold (IoU >
threshold suppresses; the boxes' extents x1 - x0, or + 1 under policy nms_box_extent); cut to
post_nms_count, padded with zero rows. Computed in float64. Equal scores whose order changes the
output, and an IoU or box size within the element type's rounding of its threshold, are undefined
(oracle-side relations equal_scores_decide and threshold_within_rounding)."""
from __future__ import annotations

import math

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.openvino.experimentaldetectrondetectionoutput import nudged
from opconform.oracle.openvino.proposal import greedy_nms, iou_matrix

_MAX_DELTA_LOG_WH = math.log(1000.0 / 16.0)  # Detectron's BBOX_XFORM_CLIP
_MARGIN = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def refined(anchors: np.ndarray, deltas: np.ndarray, max_delta_log_wh: float) -> np.ndarray:
    """Detectron's box transform with +1 pixel widths: (N, 4) anchors and (N, 4) deltas [dx, dy,
    d_log_w, d_log_h] to (N, 4) boxes, unclipped."""
    x0, y0, x1, y1 = (anchors[:, i] for i in range(4))
    ww, hh = x1 - x0 + 1.0, y1 - y0 + 1.0
    cx, cy = deltas[:, 0] * ww + x0 + 0.5 * ww, deltas[:, 1] * hh + y0 + 0.5 * hh
    with np.errstate(over="ignore"):
        pw = np.exp(np.minimum(deltas[:, 2], max_delta_log_wh)) * ww
        ph = np.exp(np.minimum(deltas[:, 3], max_delta_log_wh)) * hh
    return np.stack([cx - 0.5 * pw, cy - 0.5 * ph, cx + 0.5 * pw - 1.0, cy + 0.5 * ph - 1.0], axis=1)


def _proposals(im_info, anchors, deltas, scores):
    """Boxes clipped to the image and their scores, in the anchors' (h, w, channel) order."""
    channels, height, width = scores.shape
    d = deltas.reshape(channels, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
    boxes = refined(anchors, d, _MAX_DELTA_LOG_WH)
    img_h, img_w = float(im_info[0]), float(im_info[1])
    boxes = np.maximum(0.0, np.minimum(boxes, np.array([img_w, img_h, img_w, img_h]) - 1.0))
    return boxes, scores.transpose(1, 2, 0).reshape(-1)


def _select(attributes: dict, policies: dict, boxes, scores, small, ties_last: bool, nudge: float = 0.0):
    if policies.get("small_boxes", "dropped") == "dropped":
        index = np.flatnonzero(~small)
    else:
        index, scores = np.arange(len(scores)), np.where(small, 0.0, scores)
    key = -index if ties_last else index
    order = index[np.lexsort((key, -scores[index]))][: int(attributes["pre_nms_count"])]
    off = 1.0 if policies.get("nms_box_extent", "difference") == "plus_one" else 0.0
    overlap = nudged(iou_matrix(boxes[order], off), nudge)
    post = int(attributes["post_nms_count"])
    kept = order[greedy_nms(overlap, float(attributes["nms_threshold"]), post)][:post]  # its loop stops at a count > 0 only
    return boxes[kept], scores[kept]


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    im_info, anchors, deltas, scores = (wide(np.asarray(x)) for x in inputs)
    dtype = np.asarray(inputs[1]).dtype
    margin = _MARGIN.get(dtype.name, 1e-5)
    boxes, flat_scores = _proposals(im_info, anchors, deltas, scores)
    min_size = float(attributes["min_size"])
    extent = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) + 1.0
    if np.any(np.abs(extent - min_size) <= margin * max(min_size, 1.0)):
        raise RelationBroken(spec.id, "threshold_within_rounding", "undefined",
                             "a box's width or height lies within the element type's rounding of min_size")
    small = extent < min_size
    picked = _select(attributes, policies, boxes, flat_scores, small, False)
    for ties_last, nudge in ((True, 0.0), (False, margin), (False, -margin)):
        other = _select(attributes, policies, boxes, flat_scores, small, ties_last, nudge)
        if any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(picked, other)):
            relation = "equal_scores_decide" if ties_last else "threshold_within_rounding"
            raise RelationBroken(spec.id, relation, "undefined",
                                 "equal scores whose order changes the output" if ties_last
                                 else "an IoU lies within the element type's rounding of nms_threshold")
    kept, kept_scores = picked
    post = int(attributes["post_nms_count"])
    rois, out_scores = np.zeros((post, 4)), np.zeros(post)
    rois[: len(kept)], out_scores[: len(kept)] = kept, kept_scores
    with np.errstate(all="ignore"):
        return rois.astype(dtype), out_scores.astype(dtype)
