"""Hook for onnx::Gather: indices in [-s, s-1] for the drawn axis (random ints rarely are)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import (axis_size, break_index_bounds, draw_axis, index_tensor,
                                                      no_dependent_attributes)

dependent_attributes = no_dependent_attributes


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    s = data.shape[draw_axis(draw, d, data.ndim)]
    shape = draw(shapes.shapes(draw(st.integers(0, 3)), d.profile, min_side=0, max_side=0 if s == 0 else None))
    d.set_input("indices", index_tensor(draw, d.dtypes[1], shape, s))


BREAK = {"indices_in_bounds": lambda draw, d: break_index_bounds(draw, d, "indices", axis_size(d))}
