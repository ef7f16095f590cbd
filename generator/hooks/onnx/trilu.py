"""Hook for onnx::Trilu: k absent or a 0-D int64, mostly near the diagonals, sometimes extreme."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array

_EXTREMES = [np.iinfo(np.int64).min, np.iinfo(np.int64).max]


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0)
    k = None
    if d.present[1]:
        k = np.array(draw(st.one_of(st.integers(-4, 4), st.sampled_from(_EXTREMES))), dtype=np.int64)
    d.inputs = [x, k]


def break_k_one_value(draw, d: Draft) -> None:
    d.present[1] = True
    d.set_input("k", np.zeros(draw(st.sampled_from([(0,), (2,)])), dtype=np.int64))


BREAK = {"k_one_value": break_k_one_value}
