"""Hook for onnx::Einsum: an equation and operands that fit it (random text never does): labels
with one size each, repeated labels (diagonals), a shared ellipsis that broadcasts, implicit or
explicit output, spaces."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array

_LABELS = "abcAB"


def _term(draw, sizes: dict, ellipsis: tuple | None) -> tuple[str, tuple]:
    labels = draw(st.lists(st.sampled_from(_LABELS), max_size=3))
    if ellipsis is None:
        return "".join(labels), tuple(sizes[c] for c in labels)
    at = draw(st.integers(0, len(labels)))
    # each operand may carry size-1 dimensions where the others have the full size (broadcast)
    mine = tuple(draw(st.sampled_from([n, 1])) for n in ellipsis)
    return ("".join(labels[:at]) + "..." + "".join(labels[at:]),
            tuple(sizes[c] for c in labels[:at]) + mine + tuple(sizes[c] for c in labels[at:]))


def inputs(draw, d: Draft) -> None:
    sizes = {c: draw(st.integers(0, 2)) for c in _LABELS}
    ellipsis = draw(st.one_of(st.none(), st.lists(st.integers(1, 2), max_size=2).map(tuple)))
    terms, shapes = zip(*[_term(draw, sizes, ellipsis) for _ in d.present])
    equation = ",".join(terms)
    if draw(st.booleans()):  # explicit output: distinct labels used on the left, any order
        used = sorted(set("".join(terms).replace("...", "")))
        out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
        if ellipsis is not None:
            at = draw(st.integers(0, len(out)))
            out = out[:at] + "..." + out[at:]
        equation += "->" + out
    if draw(st.booleans()):
        equation = equation.replace(",", ", ").replace("->", " -> ")
    d.attributes["equation"] = equation
    d.inputs = [input_array(draw, d, i, shape=s) for i, s in enumerate(shapes)]
