"""Hook for onnx::OneHot: depth a scalar or [1] tensor with a small non-negative value, values a
[off, on] pair, indices around [-depth, depth-1] (some outside: they give all off_value)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import ints


def inputs(draw, d: Draft) -> None:
    depth = draw(st.integers(0, 4))
    unsigned = dtypes.get(d.dtypes[0]).kind == "uint"
    shape = draw(shapes.shapes(draw(st.integers(0, 3)), d.profile))
    idx = ints(draw, shape, 0 if unsigned else -depth - 2, depth + 1).astype(dtypes.numpy_dtype(d.dtypes[0]))
    depth_shape = draw(st.sampled_from([(), (1,)]))
    d.inputs = [idx, np.full(depth_shape, depth).astype(dtypes.numpy_dtype(d.dtypes[1])),
                input_array(draw, d, 2, shape=(2,))]
    # depth sets the output's size: fed as a constant, so value variants of a case (which redraw
    # fed inputs, edge values included) cannot turn it into 2**63 classes (MemoryError)
    d.constant_inputs[1] = True


def break_values_two_elements(draw, d: Draft) -> None:
    d.set_input("values", input_array(draw, d, 2, shape=(draw(st.sampled_from([1, 3])),)))


def break_depth_one_element(draw, d: Draft) -> None:
    depth = d.input("depth")
    d.set_input("depth", np.repeat(depth.reshape(-1), 2))


BREAK = {"values_two_elements": break_values_two_elements, "depth_one_element": break_depth_one_element}
