"""Hook for onnx::Slice: starts/ends/axes/steps of one length, distinct axes, non-zero steps, and
starts/ends around the dims (negative, inside, past the end, INT_MAX-like) so the clamping rules
of the text are exercised."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.specs import normalize_axis
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import distinct_axes, maybe_ints, set_ints


def _bound(draw, dim: int, tind: str) -> int:
    big = int(np.iinfo(np.int32 if tind == "int32" else np.int64).max)
    return draw(st.one_of(st.integers(-dim - 2, dim + 2), st.sampled_from([big, -big - 1])))


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None, None, None, None]
    rank = data.ndim
    axes = distinct_axes(draw, rank, min_size=1)
    tind = d.dtypes[1]
    dims = [data.shape[normalize_axis(a, rank)] for a in axes]
    set_ints(d, "starts", [_bound(draw, n, tind) for n in dims])
    set_ints(d, "ends", [_bound(draw, n, tind) for n in dims])
    if axes == list(range(len(axes))):  # the default: the input may be left out
        maybe_ints(draw, d, "axes", axes)
    else:
        set_ints(d, "axes", axes)
    maybe_ints(draw, d, "steps", [draw(st.sampled_from([1, -1, 2, -2, 3])) for _ in axes])


def _break_zero_step(draw, d: Draft) -> None:
    n = len(d.input("starts"))
    set_ints(d, "steps", [0] * n)


def _break_ends_length(draw, d: Draft) -> None:
    set_ints(d, "ends", [int(v) for v in d.input("ends")] + [1])


def _break_axes_length(draw, d: Draft) -> None:
    set_ints(d, "axes", list(range(len(d.input("starts")) + 1)))


def _break_steps_length(draw, d: Draft) -> None:
    set_ints(d, "steps", [1] * (len(d.input("starts")) + 1))


def _break_axes_range(draw, d: Draft) -> None:
    r = d.inputs[0].ndim
    n = len(d.input("starts"))
    if n == 0:
        set_ints(d, "starts", [0])
        set_ints(d, "ends", [1])
        if d.input("steps") is not None:
            set_ints(d, "steps", [1])
        n = 1
    set_ints(d, "axes", [draw(st.sampled_from([r, -r - 1]))] + [a for a in range(n - 1)])

BREAK = {
    "steps_nonzero": _break_zero_step,
    "ends_length": _break_ends_length,
    "axes_length": _break_axes_length,
    "steps_length": _break_steps_length,
    "axes_in_range": _break_axes_range,
}
