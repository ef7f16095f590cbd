"""Hook for onnx::CumSum: the axis input a 0-D tensor within [-r, r-1]."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0)
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    d.inputs = [x, np.array(axis, dtype=dtypes.numpy_dtype(d.dtypes[1]))]


def break_axis_in_range(draw, d: Draft) -> None:
    r = d.input("x").ndim
    d.set_input("axis", np.array(draw(st.sampled_from([r, -r - 1])), dtype=d.input("axis").dtype))


BREAK = {
    "axis_in_range": break_axis_in_range,
    "axis_one_value": lambda draw, d: d.set_input("axis", np.zeros(draw(st.sampled_from([(0,), (2,)])), d.input("axis").dtype)),
    "axis_rank": lambda draw, d: d.set_input("axis", np.zeros((1, 1), d.input("axis").dtype)),
}
