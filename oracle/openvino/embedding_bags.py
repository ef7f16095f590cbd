"""The bags of OpenVINO's embedding operations (EmbeddingBagOffsets(Sum), EmbeddingBagPacked(Sum),
EmbeddingSegmentsSum): each bag gathers rows of the table, multiplies each by its weight and sums
them (or, in mean mode, divides the sum by the bag's size); an empty bag is the default row or
zeros. The documents' NumPy snippet computes in the table's type T; floats here in float64,
rounded once to T. Integers are exact: a bag whose terms can leave T's range in some order of the
sum (the positive terms alone, or the negative ones alone, past it) raises the oracle-side
relation integer_overflow (undefined), as the reductions do; an integer mean truncates toward
zero (C++'s division, and NumPy's float quotient cast to T)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.elementwise import wide


def _integer_bag(spec_id: str, rows: np.ndarray, weights: np.ndarray, mean: bool, dtype) -> np.ndarray:
    """The exact bag of integer rows (k, ...) and weights (k,), as Python integers, in T's range."""
    terms = rows.astype(object) * weights.astype(object).reshape((-1,) + (1,) * (rows.ndim - 1))
    positive = np.sum(np.where(terms > 0, terms, 0), axis=0)
    negative = np.sum(np.where(terms < 0, terms, 0), axis=0)
    lo, hi = precision.integer_limits(dtype)
    where = np.asarray((positive > hi) | (negative < lo), dtype=bool)
    precision.refuse_overflow(spec_id, where if where.any() else None, "a bag's sum")
    total = positive + negative
    if mean:  # truncation toward zero
        k = len(rows)
        total = np.vectorize(lambda v: -((-v) // k) if v < 0 else v // k, otypes=[object])(total)
    return np.asarray(total).astype(dtype)


def reduce_bags(spec_id: str, table: np.ndarray, bags: Sequence[np.ndarray], weights: Sequence[np.ndarray | None],
                mean: bool, default_index: int | None) -> np.ndarray:
    """(len(bags), emb_dims...) in T: bag b gathers table[bags[b]], weighted by weights[b] (None:
    ones), summed (mean: over the bag's size); an empty bag is table[default_index], or zeros when
    default_index is None or -1."""
    table = np.asarray(table)
    out = np.zeros((len(bags),) + table.shape[1:], dtype=table.dtype)
    integer = table.dtype.kind in "iu"
    for b, (idx, w) in enumerate(zip(bags, weights)):
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        if idx.size == 0:
            if default_index is not None and default_index != -1:
                out[b] = table[default_index]
            continue
        rows = table[idx]
        if integer:
            ones = np.ones(idx.size, dtype=np.int64)
            out[b] = _integer_bag(spec_id, rows, ones if w is None else np.asarray(w).reshape(-1), mean, table.dtype)
            continue
        wv = np.ones(idx.size) if w is None else wide(np.asarray(w).reshape(-1))
        with np.errstate(all="ignore"):  # inf * 0, inf - inf: NaN, as the snippet computes it
            total = np.sum(wide(rows) * wv.reshape((-1,) + (1,) * (rows.ndim - 1)), axis=0)
            out[b] = precision.to_type(total / idx.size if mean else total, table.dtype)
    return out


def default_of(inputs: list, k: int) -> int | None:
    """The default_index input at position k, or None where it is absent."""
    return None if len(inputs) <= k or inputs[k] is None else int(np.asarray(inputs[k]).reshape(-1)[0])


def weight_of(inputs: list, k: int) -> np.ndarray | None:
    return None if len(inputs) <= k or inputs[k] is None else np.asarray(inputs[k])


def offset_bags(indices: np.ndarray, offsets: np.ndarray) -> list[slice]:
    """The documents' snippet: bag b holds indices[offsets[b]:offsets[b + 1]], the last one up to
    the end (indices before offsets[0] belong to no bag)."""
    ends = list(offsets[1:]) + [len(indices)]
    return [slice(int(s), int(e)) for s, e in zip(offsets, ends)]
