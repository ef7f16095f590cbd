"""Hook for onnx::Split: `split` sizes that sum to the axis, or (version 18) num_outputs.

Version 13 gets `split` unless a covering row asks for it absent: then the part count is the
node's output count, which a case (one entry per output port) cannot state, so the node has one
output (generator/onnx_model.py) and the one part is the whole input."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator import pins, shapes
from opconform.generator.draft import Draft
from opconform.specs import normalize_axis
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import set_ints


def inputs(draw, d: Draft) -> None:
    rank = draw(st.integers(1, d.profile.max_rank))
    data = input_array(draw, d, 0, shape=draw(shapes.shapes(rank, d.profile)))
    d.inputs = [data, None]
    drawn = draw(st.integers(-rank, rank - 1)) if draw(st.booleans()) else None
    pins.set_axis(d, "axis", pins.axis(d, "axis", drawn, rank))
    dim = data.shape[normalize_axis(int(d.resolved.get("axis", 0)), rank)]
    has_num = any(a.name == "num_outputs" for a in d.spec.attributes)
    d.attributes.pop("num_outputs", None)
    if has_num and dim > 0 and _num_outputs_wanted(d, draw(st.booleans())):
        d.present[1] = False
        parts = draw(st.integers(1, dim).filter(lambda n: -(-dim // n) * (n - 1) < dim))
        d.attributes["num_outputs"] = parts
        return
    if not has_num and pins.pinned(d, "input:split") is False:
        d.present[1] = False
        return
    cuts = sorted(draw(st.lists(st.integers(0, dim), max_size=3)))
    set_ints(d, "split", [b - a for a, b in zip([0] + cuts, cuts + [dim])])


def _num_outputs_wanted(d: Draft, drawn: bool) -> bool:
    """num_outputs instead of `split`: as drawn, unless a covering row pins either choice."""
    num, split = pins.pinned(d, "attr:num_outputs"), pins.pinned(d, "input:split")
    if num is not pins.UNPINNED:
        return num is not pins.OMITTED
    return drawn if split is pins.UNPINNED else not split


def _break_both(draw, d: Draft) -> None:
    x = d.input("input")
    dim = x.shape[normalize_axis(int(d.resolved.get("axis", 0)), x.ndim)]
    set_ints(d, "split", [dim])
    d.attributes["num_outputs"] = 1

BREAK = {
    "split_or_num_outputs": _break_both,
}

