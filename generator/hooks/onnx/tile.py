"""Hook for onnx::Tile: one small repeat count per axis (random int64 values explode the output)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import set_ints


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    set_ints(d, "repeats", [draw(st.integers(0, 3)) for _ in range(data.ndim)])


def _break_length(draw, d: Draft) -> None:
    set_ints(d, "repeats", [1] * (d.inputs[0].ndim + 1))


def _break_negative(draw, d: Draft) -> None:
    r = d.inputs[0].ndim
    if r == 0:
        d.inputs[0] = d.inputs[0].reshape(1)
        r = 1
    set_ints(d, "repeats", [-1] + [1] * (r - 1))


BREAK = {"repeats_length_is_rank": _break_length, "repeats_nonnegative": _break_negative}
