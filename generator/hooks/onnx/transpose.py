"""Hook for onnx::Transpose: perm as a permutation of the drawn rank (random lists rarely are)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data]
    if data.ndim and draw(st.booleans()):  # an empty perm list has no attribute type in an ONNX node
        d.attributes["perm"] = draw(st.permutations(list(range(data.ndim))))
    else:
        d.attributes.pop("perm", None)


def _break_length(draw, d: Draft) -> None:
    d.attributes["perm"] = list(range(d.input("data").ndim + 1))


def _break_permutation(draw, d: Draft) -> None:
    r = d.input("data").ndim
    d.attributes["perm"] = [0] * r if r > 1 else [draw(st.sampled_from([-1, r]))] * r


BREAK = {"perm_length_is_rank": _break_length, "perm_is_permutation": _break_permutation}
