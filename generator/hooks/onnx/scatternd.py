"""Hook for onnx::ScatterND: k-tuples in bounds, updates of shape indices.shape[:-1] + data.shape[k:],
and distinct tuples when there is no reduction (the text leaves that order undefined)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import distinct_first, ints


def inputs(draw, d: Draft) -> None:
    if d.dtypes[0] == "string" and d.resolved.get("reduction", "none") != "none":  # the text defines no reduction on strings
        d.attributes.pop("reduction", None)
    data = input_array(draw, d, 0)
    k = draw(st.integers(1, data.ndim))
    S = np.asarray(data.shape[:k], dtype=np.int64)
    cells = int(np.prod(S))
    batch = draw(shapes.shapes(draw(st.integers(0, 2)), d.profile, min_side=0))
    n = int(np.prod(batch, dtype=np.int64))
    if d.resolved.get("reduction", "none") == "none":
        if n > cells:
            batch = (cells,)
            n = cells
        flat = distinct_first(draw, (), cells, n, 0).reshape(batch)
    else:
        if cells == 0 and n:
            batch, n = (0,), 0
        flat = ints(draw, batch, 0, max(cells - 1, 0))
        d.notes.append("indices:duplicates_allowed")
    idx = np.stack(np.unravel_index(flat, tuple(S)), axis=-1).reshape(tuple(batch) + (k,)) if n else np.zeros(tuple(batch) + (k,), np.int64)
    idx = np.where(ints(draw, idx.shape, 0, 1) == 1, idx - S, idx)
    d.inputs = [data, idx, input_array(draw, d, 2, shape=tuple(batch) + data.shape[k:])]


def break_indices_in_bounds(draw, d: Draft) -> None:
    data, idx = d.input("data"), np.array(d.input("indices"), copy=True)
    if idx.size == 0:
        return
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    row, col = draw(st.integers(0, flat.shape[0] - 1)), draw(st.integers(0, k - 1))
    flat[row, col] = draw(st.sampled_from([data.shape[col], -data.shape[col] - 1]))
    d.set_input("indices", flat.reshape(idx.shape))


def break_tuple_length(draw, d: Draft) -> None:
    """Index tuples one longer than data's rank (zeros), updates of the batch shape."""
    data, idx = d.input("data"), d.input("indices")
    batch = idx.shape[:-1]
    d.set_input("indices", np.zeros(batch + (data.ndim + 1,), dtype=idx.dtype))
    d.set_input("updates", input_array(draw, d, 2, shape=batch))


BREAK = {
    "indices_in_bounds": break_indices_in_bounds,
    "tuple_length_in_range": break_tuple_length,
}
