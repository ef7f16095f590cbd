"""Hook for onnx::Unsqueeze: distinct axes within the output rank (random ones rarely are)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import distinct_axes, set_ints


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    added = draw(st.integers(0, 3))
    set_ints(d, "axes", distinct_axes(draw, data.ndim + added, min_size=added, max_size=added))


def _break_duplicates(draw, d: Draft) -> None:
    out_rank = d.input("data").ndim + 2
    a = draw(st.integers(0, out_rank - 1))
    set_ints(d, "axes", [a, a - out_rank])


def _break_range(draw, d: Draft) -> None:
    out_rank = d.input("data").ndim + 1
    set_ints(d, "axes", [draw(st.sampled_from([out_rank, -out_rank - 1]))])


BREAK = {"axes_unique": _break_duplicates, "axes_in_range": _break_range}
