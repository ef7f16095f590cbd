"""ONNX CumProd: inclusive or exclusive running products along an axis, forwards or reversed.

Policy intermediate_precision (oracle/kernels/precision.py): floats multiply in float64 and round
each output once (wide), or the running product is kept in the input type, each multiplication
rounded to it (input_type: a float32 running product past 3.4e38 stays inf, one that underflows
stays 0). Integers multiply in their own type; a running product that leaves the type's range has
an undefined outcome (the text does not define integer overflow: oracle-side relation
integer_overflow)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.scan import scan_operator


def _refuse_overflow(spec, v: np.ndarray, axis: int) -> None:
    """An integer running product's magnitude never falls (until a 0 makes it 0), so float64
    decides every position clearly inside or outside the range; those within a hair of a bound
    are multiplied again exactly, their prefix being in range."""
    lo, hi = precision.integer_limits(v.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # past float64 is past every integer type
        est = np.cumprod(v.astype(np.float64), axis=axis)
    bad = (est > hi) | (est < lo)
    near = ~bad & ((np.abs(est - hi) <= 1e-9 * hi + 2) | (np.abs(est - lo) <= 1e-9 * max(-lo, 1) + 2))
    moved = np.moveaxis(v, axis, -1)
    for i in np.argwhere(np.moveaxis(near, axis, -1)):
        exact = 1
        for f in moved[tuple(i[:-1])][: i[-1] + 1]:
            exact *= int(f)
        bad[tuple(np.insert(i[:-1], axis, i[-1]))] = not lo <= exact <= hi
    precision.refuse_overflow(spec.id, bad, f"{spec.operator} of {v.dtype} (running product)")


run = scan_operator(np.cumprod, 1, _refuse_overflow)
