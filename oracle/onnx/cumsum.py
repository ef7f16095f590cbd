"""ONNX CumSum: inclusive or exclusive running sums along an axis, forwards or reversed.

Policy intermediate_precision (oracle/kernels/precision.py): floats sum in float64 and round each
output once (wide), or the running sum is kept in the input type, each addition rounded to it
(input_type: a float32 running sum past 3.4e38 stays inf). Integers sum in their own type; a
running sum that leaves the type's range has an undefined outcome (the text does not define
integer overflow: oracle-side relation integer_overflow)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.scan import scan_operator


def _refuse_overflow(spec, v: np.ndarray, axis: int) -> None:
    lo, hi = precision.integer_limits(v.dtype)
    est = np.cumsum(v.astype(np.float64), axis=axis)
    if np.any(np.abs(est) > 2.0 ** 52):  # float64 no longer exact: the running sums as Python integers
        est = np.cumsum(v.astype(object), axis=axis)
    bad = (est > hi) | (est < lo)
    precision.refuse_overflow(spec.id, np.asarray(bad, dtype=bool), f"{spec.operator} of {v.dtype} (running sum)")


run = scan_operator(np.cumsum, 0, _refuse_overflow)
