"""Hook for onnx::AffineGrid: size's first entry is theta's batch N. The relation size_batch says
it, but only for one position of size, and value repair probes a candidate across every position
of the input at once; so theta is drawn as (N, 2, 3) or (N, 3, 4) and size as (N, C, spatial..)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    n, k = draw(st.integers(0, 3)), draw(st.sampled_from([2, 3]))
    d.set_input("theta", input_array(draw, d, d.port_index("theta"), shape=(n, k, k + 1)))
    size = input_array(draw, d, d.port_index("size"), shape=(k + 2,))
    size[0] = n
    d.set_input("size", size)
