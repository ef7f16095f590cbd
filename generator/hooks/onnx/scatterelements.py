"""Hook for onnx::ScatterElements: indices like GatherElements', updates of their shape, and no two
updates on one target when there is no reduction (the text leaves that order undefined)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import (axis_size, break_index_bounds, break_same_rank, distinct_first, draw_axis,
                                                      index_tensor, ints, no_dependent_attributes)
from opconform.generator.hooks.onnx.gatherelements import element_indices_shape

dependent_attributes = no_dependent_attributes


def inputs(draw, d: Draft) -> None:
    if d.dtypes[0] == "string" and d.resolved.get("reduction", "none") != "none":  # the text defines no reduction on strings
        d.attributes.pop("reduction", None)
    data = input_array(draw, d, 0)
    d.inputs = [data, None, None]
    axis = draw_axis(draw, d, data.ndim)
    s = data.shape[axis]
    if d.resolved.get("reduction", "none") == "none":
        shape = element_indices_shape(draw, d, data, axis, draw(st.integers(0, s)))
        outer = shape[:axis] + shape[axis + 1:]
        idx = distinct_first(draw, outer, s, shape[axis], axis)
        idx = np.where(ints(draw, shape, 0, 1) == 1, idx - s, idx)
        d.set_input("indices", idx.astype(dtypes.numpy_dtype(d.dtypes[1])))
    else:
        shape = element_indices_shape(draw, d, data, axis, 0 if s == 0 else draw(st.integers(0, d.profile.max_side)))
        d.set_input("indices", index_tensor(draw, d.dtypes[1], shape, s))
        d.notes.append("indices:duplicates_allowed")
    d.set_input("updates", input_array(draw, d, 2, shape=shape))


def break_indices_in_bounds(draw, d: Draft) -> None:
    """One index just out of bounds; updates follow when empty indices had to grow to hold it."""
    break_index_bounds(draw, d, "indices", axis_size(d))
    shape = d.input("indices").shape
    if d.input("updates").shape != shape:
        d.set_input("updates", input_array(draw, d, 2, shape=shape))


BREAK = {
    "indices_in_bounds": lambda draw, d: break_indices_in_bounds(draw, d),
    "same_rank": lambda draw, d: break_same_rank(draw, d, ("indices", "updates")),
    "updates_shape": lambda draw, d: d.set_input("updates", input_array(draw, d, 2, shape=tuple(
        n + 1 if k == 0 else n for k, n in enumerate(d.input("indices").shape)))),
}
