"""Hook for onnx::GatherElements: indices of data's rank, no larger than data off the axis, values
in [-s, s-1] along it."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import (axis_size, break_index_bounds, break_same_rank, draw_axis, index_tensor,
                                                      no_dependent_attributes)

dependent_attributes = no_dependent_attributes


def element_indices_shape(draw, d: Draft, data, axis: int, along: int) -> tuple[int, ...]:
    """A shape of data's rank: at most data's extent off the axis, `along` on it."""
    return tuple(along if k == axis else draw(st.integers(0, n)) for k, n in enumerate(data.shape))


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    axis = draw_axis(draw, d, data.ndim)
    s = data.shape[axis]
    shape = element_indices_shape(draw, d, data, axis, 0 if s == 0 else draw(st.integers(0, d.profile.max_side)))
    d.set_input("indices", index_tensor(draw, d.dtypes[1], shape, s))


BREAK = {
    "indices_in_bounds": lambda draw, d: break_index_bounds(draw, d, "indices", axis_size(d)),
    "same_rank": lambda draw, d: break_same_rank(draw, d, ("indices",)),
}
