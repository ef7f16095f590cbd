"""Hook for the window operators (HannWindow, HammingWindow, BlackmanWindow): a small scalar size
(a random int32 would ask for billions of elements)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft


def inputs(draw, d: Draft) -> None:
    d.inputs = [np.array(draw(st.integers(0, 2 * d.profile.max_side + 2)), dtype=dtypes.numpy_dtype(d.dtypes[0]))]
