"""Hook for onnx::Concat: inputs of one rank that agree off the axis, sizes along it drawn apart."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    rank = draw(st.integers(1, d.profile.max_rank))
    base = list(draw(shapes.shapes(rank, d.profile)))
    axis = draw(st.integers(-rank, rank - 1))
    d.attributes["axis"] = axis
    arrays = []
    for i in range(len(d.present)):
        base[axis] = draw(st.integers(0, d.profile.max_side))
        arrays.append(input_array(draw, d, i, shape=tuple(base)))
    d.inputs = arrays


def _break_off_axis(draw, d: Draft) -> None:
    x = d.inputs[-1]
    a = int(d.attributes["axis"]) % x.ndim
    other = (a + 1) % x.ndim
    if other == a:  # rank 1: nothing off the axis; use rank 2 for every input
        d.inputs = [v.reshape(1, -1) for v in d.inputs]
        d.attributes["axis"] = 1
        x, other = d.inputs[-1], 0
    shape = list(x.shape)
    shape[other] += 1
    d.inputs[-1] = input_array(draw, d, len(d.inputs) - 1, shape=tuple(shape))


def _break_rank(draw, d: Draft) -> None:
    d.inputs[-1] = d.inputs[-1][None]


def _break_type(draw, d: Draft) -> None:
    """Every input in an element type no version of T admits (the float8 types)."""
    import ml_dtypes

    d.inputs = [_converted(_converted(x, np.float64), ml_dtypes.float8_e4m3fn) if x.dtype != object else
                np.zeros(x.shape, ml_dtypes.float8_e4m3fn) for x in d.inputs]


def _converted(x: np.ndarray, dtype) -> np.ndarray:
    """x in another element type, values kept where they fit: a complex input gives its real part
    (explicitly, not by NumPy's discarding cast), and values past the type's range or NaN become
    whatever the cast makes of them -- a must-refuse case needs the type, not the values."""
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dtype)


def _break_same_type(draw, d: Draft) -> None:
    """The last input in another admitted type than the first (a second input added when there is
    one): without its own breaker this relation was reached only when a perturbed type happened to
    be admitted, and was missing from some seeds' 150 must-refuse cases."""
    if len(d.inputs) < 2:
        d.present.append(True)
        d.inputs.append(d.inputs[0].copy())
    first = d.inputs[0].dtype
    other = draw(st.sampled_from([t for t in (np.int32, np.float32, np.bool_) if np.dtype(t) != first]))
    x = d.inputs[-1]
    d.inputs[-1] = np.zeros(x.shape, other) if x.dtype == object else _converted(x, other)


BREAK = {
    "inputs_same_type": _break_same_type,
    "same_dims_off_axis": _break_off_axis,
    "inputs_same_rank": _break_rank,
    "inputs_type": _break_type,
}
