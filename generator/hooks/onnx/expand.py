"""Hook for onnx::Expand: a target shape broadcast-compatible with the input (shorter, longer,
with 1s on either side), which independent draws almost never give."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import set_ints


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    keep = draw(st.integers(0, data.ndim))  # trailing input dims the target spells out
    extra = draw(st.integers(0, 2)) if keep == data.ndim else 0  # leading dims beyond the input's rank
    target = [draw(st.integers(1, 3)) for _ in range(extra)]
    target += [draw(st.sampled_from([s, 1] + ([2, 3] if s == 1 else []))) for s in data.shape[data.ndim - keep:]]
    set_ints(d, "shape", target)

def _break_compatible(draw, d: Draft) -> None:
    data = d.inputs[0]
    sides = [s for s in data.shape if s > 1]
    set_ints(d, "shape", [sides[-1] + 1] if sides else [2, 0] if data.size else [2])


BREAK = {"broadcast_compatible": _break_compatible}
