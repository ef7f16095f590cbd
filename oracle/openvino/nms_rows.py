"""What MulticlassNonMaxSuppression-9 and MatrixNms-8 share after their per-class selection: the
boxes a batch element keeps under keep_top_k (its highest scores), the order sort_result and
sort_result_across_batch ask for, and the three outputs ([class_id, score, xmin, ymin, xmax, ymax]
rows, flattened box indices, the count per batch element). Equal scores that decide which boxes
are kept or where they go are undefined (`ties_unordered`): the texts give no tie rule. The IoU
is ONNX's kernel's on [xmin, ymin, xmax, ymax]; unnormalized extents count the end pixel (+1, the
PaddlePaddle convention, the texts not saying what `normalized` changes), with or without
PaddlePaddle's test that the boxes meet in their coordinates (policy unnormalized_iou)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.onnx.nonmaxsuppression import iou

_INDEX_TYPES = {"i64": np.int64, "i32": np.int32}


def pairwise_iou(boxes: np.ndarray, normalized: bool, policies: dict, dtype: type = np.float64) -> np.ndarray:
    """(M, M) IoU of [xmin, ymin, xmax, ymax] boxes. Unnormalized extents count the end pixel;
    under policy unnormalized_iou jaccard_overlap (PaddlePaddle's JaccardOverlap) boxes apart in
    their coordinates have IoU 0 even where their end pixels would meet."""
    b = boxes.astype(np.float64)[:, [1, 0, 3, 2]]  # ONNX's corner layout [y1, x1, y2, x2]
    if normalized:
        return iou(b[None], 0, dtype)[0]
    b[:, 2:] += 1
    overlap = iou(b[None], 0, dtype)[0]
    if policies.get("unnormalized_iou", "jaccard_overlap") == "jaccard_overlap":
        x0, y0, x1, y1 = (boxes.astype(np.float64)[:, k] for k in range(4))
        apart = (x0[None, :] > x1[:, None]) | (x1[None, :] < x0[:, None]) | (y0[None, :] > y1[:, None]) | (y1[None, :] < y0[:, None])
        overlap = np.where(apart, 0, overlap).astype(dtype)
    return overlap


@dataclass(frozen=True)
class Row:
    """One selected box: its batch element, class, box index within the batch element's boxes,
    (decayed) score, [xmin, ymin, xmax, ymax] and index in the flattened boxes input."""
    batch: int
    cls: int
    box: int
    score: float
    coords: tuple[float, float, float, float]
    index: int


def tie(spec_id: str, why: str) -> RelationBroken:
    return RelationBroken(spec_id, "ties_unordered", "undefined", why)


def _distinct(spec_id: str, keys: list, what: str) -> None:
    if len(set(keys)) < len(keys):
        raise tie(spec_id, f"selected boxes share {what}: their order is open")


def keep_top(spec_id: str, rows: list[Row], keep_top_k: int) -> list[Row]:
    """A batch element's rows by descending score, at most keep_top_k of them (-1: all)."""
    rows = sorted(rows, key=lambda r: -r.score)
    if -1 < keep_top_k < len(rows):
        if keep_top_k > 0 and rows[keep_top_k - 1].score == rows[keep_top_k].score:
            raise tie(spec_id, f"equal scores straddle keep_top_k {keep_top_k}: which boxes are kept is open")
        rows = rows[:keep_top_k]
    return rows


def ordered(spec_id: str, batches: list[list[Row]], sort_result: str, across_batch: bool) -> list[Row]:
    """The rows of every batch element in the asked order: by descending score or by ascending
    class (descending score within a class), per batch element or across them (by class: batch
    elements in order within a class)."""
    if sort_result == "score":
        if across_batch:
            rows = [r for rows in batches for r in rows]
            _distinct(spec_id, [r.score for r in rows], "a score")
            return sorted(rows, key=lambda r: -r.score)
        for rows in batches:
            _distinct(spec_id, [r.score for r in rows], "a score within a batch element")
        return [r for rows in batches for r in sorted(rows, key=lambda r: -r.score)]
    for rows in batches:
        _distinct(spec_id, [(r.cls, r.score) for r in rows], "a class and a score")
    by_class = [r for rows in batches for r in sorted(rows, key=lambda r: (r.cls, -r.score))]
    return sorted(by_class, key=lambda r: r.cls) if across_batch else by_class


def finish(spec_id: str, batches: list[list[Row]], attributes: dict, policies: dict, value_type: np.dtype) -> tuple[np.ndarray, ...]:
    """The outputs of every batch element's kept rows in the order the attributes ask for (with
    sort_result none, the order policy unsorted_order names, per batch element)."""
    sort_result = attributes.get("sort_result", "none")
    if sort_result == "none":
        sort_result, across = policies.get("unsorted_order", "score"), False
    else:
        across = bool(attributes.get("sort_result_across_batch", False))
    rows = ordered(spec_id, batches, sort_result, across)
    return outputs(rows, [len(r) for r in batches], value_type, _INDEX_TYPES[attributes.get("output_type", "i64")])


def outputs(rows: list[Row], counts: list[int], value_type: np.dtype, index_type: type) -> tuple[np.ndarray, ...]:
    selected = np.array([[r.cls, r.score, *r.coords] for r in rows], dtype=np.float64).reshape(-1, 6)
    indices = np.array([[r.index] for r in rows], dtype=np.int64).reshape(-1, 1)
    with np.errstate(all="ignore"):
        return (selected.astype(value_type), indices.astype(index_type), np.array(counts, dtype=index_type))
