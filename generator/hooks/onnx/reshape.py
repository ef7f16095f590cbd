"""Hook for onnx::Reshape: target shapes with the input's element count (random shapes almost
never have it), with 0 (copy) and -1 (inferred) entries mixed in as the version allows."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import set_ints, shape_with_count


def inputs(draw, d: Draft) -> None:
    data = input_array(draw, d, 0)
    d.inputs = [data, None]
    allowzero = int(d.resolved.get("allowzero", 0))
    dims = shape_with_count(draw, data.size)
    written = list(dims)
    if not allowzero:  # 0 copies the input dim at the same position
        for i in range(min(len(dims), data.ndim)):
            if dims[i] == data.shape[i] and draw(st.booleans()):
                written[i] = 0
    candidates = [i for i, v in enumerate(dims) if v > 0 and _others_nonzero(dims, i)]
    if candidates and (not allowzero or 0 not in dims) and draw(st.booleans()):
        written[draw(st.sampled_from(candidates))] = -1
        d.notes.append("shape:inferred")
    set_ints(d, "shape", written)


def _others_nonzero(dims: list[int], i: int) -> bool:
    return all(v != 0 for k, v in enumerate(dims) if k != i)


def _shape(d: Draft) -> list[int]:
    return [int(v) for v in d.input("shape")]


def _break_two_inferred(draw, d: Draft) -> None:
    set_ints(d, "shape", [-1, -1] + _shape(d))


def _break_zero_with_inferred(draw, d: Draft) -> None:
    d.attributes["allowzero"] = 1
    set_ints(d, "shape", [0, -1])


BREAK = {
    "at_most_one_inferred": _break_two_inferred,
    "allowzero_no_zero_with_inferred": _break_zero_with_inferred,
}
