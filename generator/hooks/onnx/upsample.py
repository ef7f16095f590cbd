"""Hook for onnx::Upsample: version 7 takes its scales as a floats attribute, which value repair
does not read (it repairs ints attributes only), so they are drawn here after X: one per axis, in
quarters of [1, 3] (exact in float32, so floor(input_dimension * scale) has one value)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    if d.spec.since == 7:
        rank = d.input("X").ndim
        d.attributes["scales"] = [draw(st.integers(4, 12)) / 4 for _ in range(max(rank, 1))]


def _break_scale_below_one(draw, d: Draft) -> None:
    scales = list(d.attributes.get("scales") or [1.0])
    scales[draw(st.integers(0, len(scales) - 1))] = draw(st.sampled_from([0.5, 0.75, 0.0]))
    d.attributes["scales"] = scales


BREAK = {"scales_attribute_at_least_one": _break_scale_below_one}  # Upsample-7 only: from 9 scales is an input
