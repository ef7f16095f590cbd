"""Hook for the window operators (HannWindow, HammingWindow, BlackmanWindow): a small scalar size
(a random int32 would ask for billions of elements)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft


def inputs(draw, d: Draft) -> None:
    d.inputs = [np.array(draw(st.integers(0, 2 * d.profile.max_side + 2)), dtype=dtypes.numpy_dtype(d.dtypes[0]))]
    # size sets the output's length: fed as a constant, so the runner's value variants (which
    # redraw fed inputs, edge values included) cannot ask for 2**53 elements, as with OneHot's depth
    d.constant_inputs[0] = True
