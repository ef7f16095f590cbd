"""Hook for onnx::Compress: a condition no longer than the selected axis (or the flattened input)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import ints, no_dependent_attributes

dependent_attributes = no_dependent_attributes


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0)
    if draw(st.booleans()):
        d.attributes["axis"] = draw(st.integers(-x.ndim, x.ndim - 1))
        a = d.attributes["axis"]
        n = x.shape[a + x.ndim if a < 0 else a]
    else:
        d.attributes.pop("axis", None)
        n = x.size
    d.inputs = [x, ints(draw, (draw(st.integers(0, n)),), 0, 1).astype(np.bool_)]
