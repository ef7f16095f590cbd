"""OpenVINO MulticlassNonMaxSuppression-9: the document's steps per batch element and class, boxes
of background_class skipped -- take the box of highest score, stop below score_threshold, keep it,
lower the adaptive threshold by nms_eta while it is above 0.5, drop every remaining box whose IoU
with it exceeds the threshold (erratum suppressed_readded: a dropped box leaves B). IoU as ONNX's
kernel computes it on [xmin, ymin, xmax, ymax]; unnormalized boxes count their end pixel
(oracle/openvino/nms_rows.py pairwise_iou). Then keep_top_k per batch element and the asked order (oracle/openvino/nms_rows.py).
Two input forms: boxes shared by the classes ([N, M, 4], scores [N, C, M]) or per class
([C, M, 4], scores [C, M]) cut into batch elements by roisnum."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import nms_rows
from opconform.oracle.openvino.nms_rows import Row, pairwise_iou

def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    names = {"iou_precision"}
    if int(attributes.get("nms_top_k", -1)) > -1:
        names.add("nms_top_k_meaning")
    if attributes.get("sort_result", "none") == "none":
        names.add("unsorted_order")
    if len(inputs) > 2 and inputs[2] is not None:
        names.add("roisnum_index")
    if not attributes.get("normalized", True):
        names.add("unnormalized_iou")
    return names


def _select(spec_id: str, boxes: np.ndarray, scores: np.ndarray, attributes: dict, policies: dict) -> list[int]:
    """Indices of one class's kept boxes in the order the steps keep them."""
    dtype = np.float32 if policies.get("iou_precision") == "float32" else np.float64
    overlap = pairwise_iou(boxes, bool(attributes.get("normalized", True)), policies, dtype)
    s = scores.astype(np.float64)
    score_min = float(attributes.get("score_threshold", 0.0))
    top_k = int(attributes.get("nms_top_k", -1))
    alive = np.ones(len(s), dtype=bool)
    if -1 < top_k < len(s) and policies.get("nms_top_k_meaning", "candidates") == "candidates":
        ranked = np.sort(s)[::-1]
        if top_k > 0 and ranked[top_k - 1] == ranked[top_k] and ranked[top_k] >= score_min:
            raise nms_rows.tie(spec_id, f"equal scores straddle nms_top_k {top_k}: which boxes are fed is open")
        alive[np.argsort(-s, kind="stable")[top_k:]] = False
    threshold, eta = dtype(attributes.get("iou_threshold", 0.0)), dtype(attributes.get("nms_eta", 1.0))
    kept: list[int] = []
    while alive.any():
        best = np.max(s[alive])
        if not best >= score_min:
            break
        at = np.flatnonzero(alive & (s == best))
        if len(at) > 1:
            raise nms_rows.tie(spec_id, f"boxes {at.tolist()} share the highest score {best}: which is taken first is open")
        k = int(at[0])
        alive[k] = False
        kept.append(k)
        if top_k > -1 and len(kept) >= top_k and policies.get("nms_top_k_meaning") == "selected":
            break
        if eta < 1 and threshold > 0.5:
            threshold = dtype(threshold * eta)
        alive &= ~(overlap[k] > threshold)
    return kept


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    roisnum = np.asarray(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else None
    background = int(attributes.get("background_class", -1))
    batches: list[list[Row]] = []
    if roisnum is None:  # boxes shared by the classes
        n, c, m = scores.shape
        images = [(b, boxes[b][None].repeat(c, 0), scores[b], 0) for b in range(n)]
    else:  # each class its own boxes, cut into images by roisnum
        c, m = scores.shape
        starts = np.concatenate([[0], np.cumsum(roisnum)[:-1]]).astype(int)
        images = [(b, boxes[:, s0:s0 + int(k)], scores[:, s0:s0 + int(k)], int(s0)) for b, (s0, k) in enumerate(zip(starts, roisnum))]
    for b, image_boxes, image_scores, offset in images:
        rows = []
        for cls in range(c):
            if cls == background:
                continue
            for k in _select(spec.id, image_boxes[cls], image_scores[cls], attributes, policies):
                if roisnum is None:
                    index = b * m + k
                elif policies.get("roisnum_index", "box_major") == "box_major":
                    index = (offset + k) * c + cls
                else:
                    index = cls * m + offset + k
                rows.append(Row(b, cls, k, float(image_scores[cls, k]), tuple(float(v) for v in image_boxes[cls, k]), index))
        batches.append(nms_rows.keep_top(spec.id, rows, int(attributes.get("keep_top_k", -1))))
    return nms_rows.finish(spec.id, batches, attributes, policies, boxes.dtype)
