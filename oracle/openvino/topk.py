"""OpenVINO TopK-11: the k largest (mode max) or smallest (min) elements of each slice along the
axis, ordered by value (sort value) or by input index (sort index). ONNX's TopK orders by value or
leaves the order open; ordering by index and the choice among equal values (`stable`) are
OpenVINO's, so the kernel is the ONNX one's stable order (oracle/kernels/indexing.py) with these
on top.

Where the document leaves the answer open the case is undefined (oracle-side relation
`ties_unordered`): without `stable`, equal values may come in any order, and the one chosen at
the k-th place among equal values is open (the document's example gives three correct results);
sort none leaves the order of k >= 2 elements open."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.indexing import axis_of, stable_order

_TYPES = {"i64": np.int64, "i32": np.int32}


def _equal_neighbours(sorted_vals: np.ndarray, axis: int) -> np.ndarray:
    """Where element j along the axis of a slice sorted by value equals element j + 1 (NaN equal
    to NaN: the order ranks them together)."""
    a = np.take(sorted_vals, np.arange(sorted_vals.shape[axis] - 1), axis=axis)
    b = np.take(sorted_vals, np.arange(1, sorted_vals.shape[axis]), axis=axis)
    with np.errstate(invalid="ignore"):
        same = a == b
        if sorted_vals.dtype.kind == "f":
            same |= np.isnan(a) & np.isnan(b)
    return same


def open_choice(x: np.ndarray, order: np.ndarray, axis: int, k: int, sort: str, stable: bool) -> str:
    """Why the document gives more than one answer, or ''."""
    if sort == "none" and k >= 2:
        return "sort none: the order of the selected elements is undefined"
    if stable and sort != "none":
        return ""
    n = x.shape[axis]
    with np.errstate(invalid="ignore"):
        ranked = np.take_along_axis(x.astype(np.float64) if x.dtype.kind == "f" else x, order, axis=axis)
    same = _equal_neighbours(ranked, axis)  # pairs (j, j + 1) in value order
    if k < n and np.any(np.take(same, [k - 1], axis=axis)):
        return f"equal values straddle the k-th place: which of them are selected is open without stable"
    if sort == "value" and k >= 2 and np.any(np.take(same, np.arange(k - 1), axis=axis)):
        return "equal values among the selected: their order is open without stable"
    return ""


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, k = np.asarray(inputs[0]), int(np.asarray(inputs[1]).reshape(-1)[0])
    axis = axis_of(attributes["axis"], x.ndim)
    sort, stable = attributes["sort"], bool(attributes.get("stable", False))
    order = stable_order(x, axis, descending=attributes["mode"] == "max",
                         nan_greatest=policies["nan_order"] == "nan_greatest")
    why = open_choice(x, order, axis, k, sort, stable)
    if why:
        raise RelationBroken(spec.id, "ties_unordered", "undefined", why)
    chosen = np.take(order, np.arange(k), axis=axis)
    if sort == "index":
        chosen = np.sort(chosen, axis=axis)
    index_type = _TYPES[attributes.get("index_element_type", "i32")]
    return np.take_along_axis(x, chosen, axis=axis), chosen.astype(index_type)
