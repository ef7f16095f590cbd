"""Hook for OpenVINO Unique-10: the value modes of onnx Unique, with axis as a constant input.

Why a hook: the axis input's range depends on the rank of data, and duplicates, NaNs and
signed zeros must be built on purpose (see hooks/onnx/unique.py).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.hooks.onnx.unique import unique_values


def _axis_array(draw, d: Draft, value_list: list[int]) -> np.ndarray:
    """Axis values as the drawn axis element type; one value as a scalar or a 1-element vector."""
    dt = dtypes.numpy_dtype(d.dtypes[d.port_index("axis")])
    if len(value_list) == 1 and draw(st.booleans()):
        return np.array(value_list[0], dtype=dt)
    return np.array(value_list, dtype=dt)


def inputs(draw, d: Draft) -> None:
    rank = draw(shapes.ranks(d.port("data"), d.profile))
    shape = draw(shapes.shapes(rank, d.profile))
    i = d.port_index("axis")
    d.present[i] = d.present[i] and rank > 0  # a rank-0 tensor has no axis to name
    axis = draw(st.integers(-rank, rank - 1)) if d.present[i] else None
    d.set_input("axis", None if axis is None else _axis_array(draw, d, [axis]))
    d.set_input("data", unique_values(draw, d, d.dtypes[0], shape, None if axis is None else axis % rank))
