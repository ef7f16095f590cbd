"""OpenVINO NonMaxSuppression-9: the document's steps per batch and class -- take the box of highest
current score, stop when it is below score_threshold (or the class holds
max_output_boxes_per_class), keep it, and multiply every other remaining score by func(IoU):
0 past iou_threshold (the box is dropped: erratum suppressed_readded) or exp(-0.5 iou^2 / sigma)
with soft_nms_sigma. IoU as ONNX's kernel computes it (oracle/onnx/nonmaxsuppression.py).
Outputs in (batch, class, selection) order, or with sort_result_descending by score over all
selected boxes. Equal scores that make the choice or the order depend on the tie are undefined
(oracle-side relation `ties_unordered`). Policy output_size: the selected rows only, or the
static plugins' upper bound padded with -1."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.onnx.nonmaxsuppression import iou

_TYPES = {"i64": np.int64, "i32": np.int32}


def _scalar(inputs: list, k: int, default: float) -> float:
    x = inputs[k] if len(inputs) > k else None
    return default if x is None else float(wide(np.asarray(x)).reshape(-1)[0])


def _tie(spec_id: str, why: str) -> RelationBroken:
    return RelationBroken(spec_id, "ties_unordered", "undefined", why)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    overlap = iou(np.asarray(inputs[0]), 1 if attributes.get("box_encoding", "corner") == "center" else 0)  # (B, N, N) float64
    return select(spec, inputs, attributes, policies, overlap)


def select(spec: SpecVersion, inputs: list, attributes: dict, policies: dict, overlap: np.ndarray) -> tuple[np.ndarray, ...]:
    """The steps on the boxes' (B, N, N) IoU, shared with NMSRotated-13 (whose IoU is of rotated boxes)."""
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    limit = int(_scalar(inputs, 2, 0))
    threshold, score_min, sigma = _scalar(inputs, 3, 0.0), _scalar(inputs, 4, 0.0), _scalar(inputs, 5, 0.0)
    b_count, c_count, n = scores.shape
    rows = []
    for b in range(b_count):
        for c in range(c_count):
            s = wide(scores[b, c]).copy()
            alive = np.ones(n, dtype=bool)
            kept = 0
            while alive.any() and kept < limit:
                best = np.max(s[alive])
                at = np.flatnonzero(alive & (s == best))
                if len(at) > 1 and best >= score_min:
                    raise _tie(spec.id, f"boxes {at.tolist()} share the highest score {best}: which is taken first is open")
                k = int(at[0])
                alive[k] = False
                if not best >= score_min:
                    break
                rows.append((b, c, k, best))
                kept += 1
                factor = np.where(overlap[b, k] <= threshold, 1.0, 0.0) if sigma == 0 else \
                    np.exp(-0.5 * overlap[b, k] ** 2 / sigma)
                s = s * factor
                if sigma == 0:
                    alive &= factor > 0  # a suppressed box leaves B
    if attributes.get("sort_result_descending", True) and rows:
        scores_kept = np.array([r[3] for r in rows])
        if len(np.unique(scores_kept)) < len(scores_kept):
            raise _tie(spec.id, "selected boxes share a score: their order across batches and classes is open")
        rows = [rows[i] for i in np.argsort(-scores_kept, kind="stable")]
    index_type = _TYPES[attributes.get("output_type", "i64")]
    selected = np.array([[r[0], r[1], r[2]] for r in rows], dtype=np.int64).reshape(-1, 3)
    kept_scores = np.array([[r[0], r[1], r[3]] for r in rows], dtype=np.float64).reshape(-1, 3)
    if policies["output_size"] == "padded":
        total = min(n, max(limit, 0)) * b_count * c_count
        selected = np.concatenate([selected, np.full((total - len(rows), 3), -1, dtype=np.int64)])
        kept_scores = np.concatenate([kept_scores, np.full((total - len(rows), 3), -1.0)])
    given = [np.asarray(inputs[k]) for k in (3, 4, 5) if len(inputs) > k and inputs[k] is not None]
    score_type = given[0].dtype if given else boxes.dtype  # T_THRESHOLDS: the thresholds' type, else the boxes'
    with np.errstate(all="ignore"):
        return (selected.astype(index_type), kept_scores.astype(score_type),
                np.array([len(rows)], dtype=index_type))
