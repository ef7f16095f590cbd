"""OpenVINO MatrixNms-8: per batch element and class (background_class skipped) the boxes scoring
above score_threshold, at most nms_top_k of the best, are sorted by descending score; X is their
IoU matrix's upper triangle (X[i, j]: box j against the better box i), K[i] the largest IoU of box
i with a better box, and each box's score is multiplied by the column-wise minimum of
exp((K[i]^2 - X[i, j]^2) * gaussian_sigma) or (1 - X[i, j]) / (1 - K[i]). Boxes whose decayed
score is above post_threshold are kept; keep_top_k and the order follow
(oracle/openvino/nms_rows.py). IoU as MulticlassNonMaxSuppression's (unnormalized extents count
the end pixel)."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.openvino import nms_rows
from opconform.oracle.openvino.nms_rows import Row, pairwise_iou

def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    names = {"unsorted_order"} if attributes.get("sort_result", "none") == "none" else set()
    return names | (set() if attributes.get("normalized", True) else {"unnormalized_iou"})


def decayed(spec_id: str, boxes: np.ndarray, scores: np.ndarray, attributes: dict, policies: dict) -> tuple[np.ndarray, np.ndarray]:
    """(box indices in descending score, their decayed scores) of one class."""
    s = scores.astype(np.float64)
    candidates = np.flatnonzero(s > float(attributes.get("score_threshold", 0.0)))
    order = candidates[np.argsort(-s[candidates], kind="stable")]
    top_k = int(attributes.get("nms_top_k", -1))
    head = s[order] if top_k < 0 else s[order][: top_k + 1]
    if len(np.unique(head)) < len(head):
        raise nms_rows.tie(spec_id, "candidate boxes share a score: which one decays the other (or is cut by nms_top_k) is open")
    if top_k > -1:
        order = order[:top_k]
    x = np.triu(pairwise_iou(boxes[order], bool(attributes.get("normalized", True)), policies), k=1)
    k = x.max(axis=0, initial=0.0)  # each box's largest IoU with a better box
    if attributes.get("decay_function", "linear") == "gaussian":
        decay = np.exp((k[:, None] ** 2 - x ** 2) * float(attributes.get("gaussian_sigma", 2.0)))
    else:
        if np.any(k[:-1] >= 1):  # the last box suppresses nothing
            raise RelationBroken(spec_id, "linear_decay_of_a_duplicate", "undefined",
                                 "a box with an IoU of 1 with a better box makes (1 - X) / (1 - X_cmax) divide by 0")
        decay = (1 - x) / (1 - k[:, None])
    return order, s[order] * decay.min(axis=0, initial=1.0)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    n, c, m = scores.shape
    background = int(attributes.get("background_class", -1))
    post = float(attributes.get("post_threshold", 0.0))
    batches: list[list[Row]] = []
    for b in range(n):
        rows = []
        for cls in range(c):
            if cls == background:
                continue
            order, score = decayed(spec.id, boxes[b], scores[b, cls], attributes, policies)
            rows += [Row(b, cls, int(k), float(v), tuple(float(t) for t in boxes[b, k]), b * m + int(k))
                     for k, v in zip(order, score) if v > post]
        batches.append(nms_rows.keep_top(spec.id, rows, int(attributes.get("keep_top_k", -1))))
    return nms_rows.finish(spec.id, batches, attributes, policies, boxes.dtype)
