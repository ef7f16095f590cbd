"""Hook for onnx::Range: scalar start/limit/delta with a non-zero delta and a handful of
elements (random scalars give empty or astronomically long ranges)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft


def inputs(draw, d: Draft) -> None:
    dt = dtypes.numpy_dtype(d.dtypes[0])
    is_float = dtypes.get(d.dtypes[0]).is_float
    unit = draw(st.sampled_from([1.0, 0.5, 0.25, 0.1])) if is_float else 1
    start = draw(st.integers(-8, 8)) * unit
    delta = draw(st.sampled_from([1, 2, 3, -1, -2])) * unit
    count = draw(st.integers(-1, 8))  # -1: limit on the wrong side, an empty range
    slack = draw(st.sampled_from([0, 0.5])) if is_float else 0
    limit = start + (count + slack) * delta
    d.inputs = [np.asarray(start, dtype=np.float64).astype(dt), np.asarray(limit, dtype=np.float64).astype(dt),
                np.asarray(delta, dtype=np.float64).astype(dt)]
