"""Hook for GatherND: indices are tuples into data, so they must be drawn knowing data's shape.

Why a hook: "every index within [-s, s-1] along its axis", "indices_shape[-1] in [1, r-b]" and
"the first b dimensions agree" hold for independent random draws almost never. Here the layout
(b, q, r, m) is drawn first, then shapes that satisfy it, then each index column within its
own bound with both ends (-s, -1, 0, s-1) favoured. Breakers build layouts that break exactly one
relation. OpenVINO's GatherND-5/8 reuse this module (same inputs, attribute and relations).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import assume, strategies as st

from opconform.generator import shapes, values
from opconform.generator.draft import Draft

DATA, INDICES, BATCH = 0, 1, "batch_dims"


def _negative_indices(d: Draft) -> bool:
    """ONNX admits [-s, s-1]; OpenVINO's text defines [0, s-1] only."""
    return d.spec.dialect == "onnx"


def _min_tuple(d: Draft) -> int:
    """ONNX requires indices.shape[-1] >= 1; OpenVINO sets no lower bound (0 selects whole entries)."""
    return 1 if d.spec.dialect == "onnx" else 0


@lru_cache(maxsize=None)
def _index_column(s: int, negative: bool) -> st.SearchStrategy[int]:
    """Indices into an axis of size s: both ends first (so they are reached by construction)."""
    lo = -s if negative else 0
    return st.one_of(st.sampled_from(sorted({0, s - 1, lo, -1 if negative else 0})), st.integers(lo, s - 1))


def _indices(draw, d: Draft, shape: tuple[int, ...], bounds: list[int]) -> np.ndarray:
    m = shape[-1]
    n = int(np.prod(shape, dtype=np.int64))
    neg = _negative_indices(d)
    flat = draw(st.tuples(*[_index_column(bounds[j % m], neg) for j in range(n)])) if n else ()
    return values.from_elements(d.dtypes[INDICES], list(flat), shape)


def _layout(draw, d: Draft, b: int, r: int, q: int, m: int, *, batch_from: tuple[int, ...] | None = None) -> None:
    """Data of rank r and indices of rank q with last dimension m under batch_dims b, all
    relations holding; `batch_from` forces data's leading dims (used by breakers)."""
    p = d.profile
    batch = batch_from if batch_from is not None else draw(shapes.shapes(b, p))
    tuple_axes = draw(shapes.shapes(m, p, min_side=1))  # an index needs a non-empty axis
    rest = draw(shapes.shapes(r - b - m, p))
    data_shape = tuple(batch) + tuple(tuple_axes) + tuple(rest)
    middle = draw(shapes.shapes(q - b - 1, p)) if q - b - 1 >= 0 else ()
    idx_shape = tuple(batch[:b]) + tuple(middle) + (m,)
    assume(shapes.fits(data_shape, p) and shapes.fits(idx_shape, p))
    d.inputs[DATA] = draw(values.arrays(d.dtypes[DATA], data_shape))
    d.inputs[INDICES] = _indices(draw, d, idx_shape, list(data_shape[b:b + m]))


def _has_batch(d: Draft) -> bool:
    """GatherND-11 has no batch_dims (it came with version 12)."""
    return any(a.name == BATCH for a in d.spec.attributes)


def _max_rank(d: Draft) -> int:
    return max(2, d.profile.max_rank)


def inputs(draw, d: Draft) -> None:
    top = _max_rank(d)
    explicit = _has_batch(d) and draw(st.booleans())
    b = draw(st.integers(0, top - 1)) if explicit else 0
    if explicit:
        d.attributes[BATCH] = b
    else:
        d.attributes.pop(BATCH, None)
    r = draw(st.integers(b + 1, top))
    q = draw(st.integers(b + 1, top))
    m = draw(st.integers(_min_tuple(d), r - b))
    _layout(draw, d, b, r, q, m)


def dependent_attributes(draw, d: Draft) -> None:
    """batch_dims is drawn with the layout in `inputs`."""


def break_tuple_length(draw, d: Draft) -> None:
    """indices_shape[-1] = 0, or r - b + 1 (one column more than data has axes after the batch)."""
    data, idx = d.inputs[DATA], d.inputs[INDICES]
    b = d.resolved.get(BATCH, 0)
    r = data.ndim
    m = draw(st.sampled_from([0, r - b + 1] if _min_tuple(d) else [r - b + 1]))
    shape = idx.shape[:-1] + (m,)
    bounds = [max(s, 1) for s in data.shape[b:]] + [1]  # any value will do: the tuple is too long anyway
    d.inputs[INDICES] = _indices(draw, d, shape, bounds) if m else np.zeros(shape, dtype=idx.dtype)


def break_batch_shapes(draw, d: Draft) -> None:
    """b >= 1 and one leading dimension of indices differs from data's."""
    assume(_has_batch(d))
    top = _max_rank(d)
    b = draw(st.integers(1, top - 1))
    d.attributes[BATCH] = b
    r, q = draw(st.integers(b + 1, top)), draw(st.integers(b + 1, top))
    _layout(draw, d, b, r, q, draw(st.integers(_min_tuple(d), r - b)))
    idx = d.inputs[INDICES]
    axis = draw(st.integers(0, b - 1))
    shape = list(idx.shape)
    shape[axis] += 1
    assume(shapes.fits(tuple(shape), d.profile))
    bounds = list(d.inputs[DATA].shape[b:b + idx.shape[-1]])
    d.inputs[INDICES] = _indices(draw, d, tuple(shape), bounds)


def break_batch_below_ranks(draw, d: Draft) -> None:
    """b = q < r: the only way to break b < min(q, r) alone. Then indices' shape is data's first
    q dimensions (so the batch shapes agree) and its last dimension m = data.shape[q-1] <= r - b."""
    assume(_has_batch(d))
    top = _max_rank(d)
    b = draw(st.integers(1, top - 1))
    r = draw(st.integers(b + 1, top))
    m = draw(st.integers(1, min(r - b, d.profile.max_side)))
    lead = draw(shapes.shapes(b - 1, d.profile)) + (m,)
    d.attributes[BATCH] = b
    rest = draw(shapes.shapes(r - b, d.profile, min_side=1))
    data_shape = tuple(lead) + tuple(rest)
    assume(shapes.fits(data_shape, d.profile))
    d.inputs[DATA] = draw(values.arrays(d.dtypes[DATA], data_shape))
    d.inputs[INDICES] = _indices(draw, d, tuple(lead), list(data_shape[b:b + m]))


BREAK = {
    "tuple_length_in_range": break_tuple_length,
    "batch_dims_shapes_equal": break_batch_shapes,
    "batch_dims_below_ranks": break_batch_below_ranks,
}
