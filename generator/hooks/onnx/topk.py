"""Hook for onnx::TopK: K = [k] with 1 <= k <= the axis size, and values with ties (lower index
first is the rule to test) besides the generic edge values."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import axis_size, draw_axis, ints, no_dependent_attributes

dependent_attributes = no_dependent_attributes


def inputs(draw, d: Draft) -> None:
    shape = draw(shapes.shapes(draw(shapes.ranks(d.port("X"), d.profile)), d.profile, min_side=1))
    if draw(st.booleans()):
        x = ints(draw, shape, 0, 3).astype(dtypes.numpy_dtype(d.dtypes[0]))
        d.notes.append("values:ties")
    else:
        x = input_array(draw, d, 0, shape=shape)
    axis = draw_axis(draw, d, x.ndim)
    # sorted = 0 leaves the order open: only k = 1 is checkable (the spec makes k >= 2 undefined)
    k = draw(st.integers(1, x.shape[axis])) if d.resolved["sorted"] else 1
    d.inputs = [x, np.array([k], dtype=np.int64)]


BREAK = {
    "k_within_axis": lambda draw, d: d.set_input("K", np.array([axis_size(d, "X") + draw(st.integers(1, 2))], np.int64)),
    "k_not_negative": lambda draw, d: d.set_input("K", np.array([draw(st.integers(-3, -1))], np.int64)),
    "k_single_value": lambda draw, d: d.set_input("K", np.repeat(d.input("K"), 2)),
    "K_type": lambda draw, d: d.set_input("K", d.input("K").astype(draw(st.sampled_from([np.int32, np.float32])))),
}
