"""Hook for onnx::ConstantOfShape: the tensor attribute `value` (one element of an admitted
type; the generic attribute step has no strategy for tensors) and a small non-negative shape."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import values
from opconform.generator.draft import Draft
from opconform.generator.families.default import generatable
from opconform.generator.hooks.onnx._layout import set_ints


def attributes(draw, d: Draft) -> None:
    d.attributes = {}
    if draw(st.booleans()):
        etype = draw(st.sampled_from(generatable(d.spec.outputs[0].types)))
        d.attributes["value"] = draw(values.arrays(etype, (1,)))


def inputs(draw, d: Draft) -> None:
    d.inputs = [None]
    set_ints(d, "input", draw(st.lists(st.integers(0, 3), max_size=3)))


def _break_nonnegative(draw, d: Draft) -> None:
    set_ints(d, "input", [2, -1])


def _break_one_element(draw, d: Draft) -> None:
    etype = draw(st.sampled_from(generatable(d.spec.outputs[0].types)))
    d.attributes["value"] = draw(values.arrays(etype, (2,)))


def _break_value_type(draw, d: Draft) -> None:
    d.attributes["value"] = np.array([draw(st.sampled_from(["a", "0"]))], dtype=object)

BREAK = {
    "input_nonnegative": _break_nonnegative,
    "value_one_element": _break_one_element,
    "value_type": _break_value_type,
}
