"""ONNX Einsum equations: parsing, and the consistency rules of the Einsum text checked against
operand shapes. The relation language exposes them as `einsum_terms` and `einsum_problem`."""
from __future__ import annotations

from typing import Sequence

import numpy as np

ELLIPSIS = "..."


def parse(equation: str) -> tuple[list[str], str | None]:
    """(input terms, output term or None in implicit mode); spaces removed, ellipses kept."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    return lhs.split(","), (rhs if arrow else None)


def _labels(term: str) -> tuple[list[str], bool, str]:
    """(letters, has ellipsis, problem) of one term."""
    count = term.count(ELLIPSIS)
    letters = term.replace(ELLIPSIS, "")
    if count > 1:
        return [], True, f"term {term!r} has more than one ellipsis"
    if not all(c.isascii() and c.isalpha() for c in letters):
        return [], bool(count), f"term {term!r} has characters other than letters and one '...'"
    return list(letters), bool(count), ""


def problem(equation: str, shapes: Sequence[Sequence[int]]) -> str:
    """'' when the equation fits the operand shapes; else what is wrong, in a few words."""
    terms, output = parse(equation)
    if output is not None and "->" in output:
        return "more than one '->'"
    if len(terms) != len(shapes):
        return f"{len(terms)} input terms for {len(shapes)} operands"
    sizes: dict[str, int] = {}
    ellipses = []
    for term, shape in zip(terms, shapes):
        letters, has_ellipsis, bad = _labels(term)
        if bad:
            return bad
        extra = len(shape) - len(letters)
        if extra < 0 or (extra and not has_ellipsis):
            return f"term {term!r} does not fit an operand of rank {len(shape)}"
        dims = list(shape)
        if has_ellipsis:
            start = term.index(ELLIPSIS)  # the letters before the ellipsis
            ellipses.append(tuple(shape[start:start + extra]))
            dims = dims[:start] + dims[start + extra:]
        for c, n in zip(letters, dims):
            if sizes.setdefault(c, n) != n:
                return f"label {c!r} has sizes {sizes[c]} and {n}"
    if len({len(e) for e in ellipses}) > 1:
        return "ellipses stand for different numbers of dimensions"
    try:
        broadcast = np.broadcast_shapes(*ellipses) if ellipses else ()
    except ValueError:
        return "the ellipsis dimensions do not broadcast"
    if output is None:
        return ""
    letters, has_ellipsis, bad = _labels(output)
    if bad:
        return bad
    if len(set(letters)) != len(letters):
        return f"output term {output!r} repeats a label"
    if any(c not in sizes for c in letters):
        return f"output term {output!r} has a label no input has"
    if broadcast and not has_ellipsis:
        return "the output drops the ellipsis dimensions"
    if has_ellipsis and not ellipses:
        return "the output has an ellipsis no input has"
    return ""
