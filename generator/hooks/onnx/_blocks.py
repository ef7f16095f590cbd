"""Shared by the DepthToSpace and SpaceToDepth hooks: NCHW inputs whose blocked dims divide."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def blocked_input(draw, d: Draft, *, depth: bool) -> None:
    """`depth`: C is a multiple of blocksize**2 (DepthToSpace); else H and W are multiples of it."""
    b = draw(st.integers(1, 3))
    d.attributes["blocksize"] = b
    n, k = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    if depth:
        shape = (n, b * b * k, draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    else:
        shape = (n, k, b * draw(st.integers(1, 2)), b * draw(st.integers(1, 2)))
    d.inputs = [input_array(draw, d, 0, shape=shape)]
