"""Hook for onnx::ScatterElements: indices of data's rank (no larger off the axis, in bounds along
it), updates of their shape, and no two updates on one target when there is no reduction (the text
leaves that order undefined)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import (axis_size, break_index_bounds, distinct_first, draw_axis, index_tensor,
                                                      ints, no_dependent_attributes)

dependent_attributes = no_dependent_attributes


def element_indices_shape(draw, d: Draft, data, axis: int, along: int) -> tuple[int, ...]:
    """A shape of data's rank: at most data's extent off the axis, `along` on it."""
    return tuple(along if k == axis else draw(st.integers(0, n)) for k, n in enumerate(data.shape))


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


# same_rank and updates_shape: the solver's generic breakers (indices one rank more, updates
# then reshaped to them; updates one off). indices_in_bounds stays: value repair's breaker only
# moves an element of indices, and this hook's indices are often empty (it drew a must-refuse
# case in 4 to 12 of 30 tries, this one in 27 to 30)
BREAK = {"indices_in_bounds": lambda draw, d: break_indices_in_bounds(draw, d)}
