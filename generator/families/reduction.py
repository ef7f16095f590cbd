"""Reductions: `axes` (an attribute or an optional input) as distinct axes within [-r, r-1],
negative ones and the empty list included; keepdims and noop_with_empty_axes come from the
attributes step (allowed 0/1, omitted or explicit).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import pins
from opconform.generator.draft import Draft
from opconform.generator.families import default


def _axes(draw, rank: int) -> list[int]:
    """Distinct axes (after normalisation), each written as positive or negative at random."""
    if rank == 0:
        return []
    picked = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    return [a - rank if draw(st.booleans()) else a for a in picked]


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    data = d.inputs[0]
    rank = 0 if data is None else data.ndim
    names = [p.name for p in d.spec.inputs]
    if "axes" in names and d.present[names.index("axes")]:
        d.set_input("axes", np.array(_axes(draw, rank), dtype=np.int64))
    elif "axes" in {a.name for a in d.spec.attributes} and pins.given(draw, d, "axes"):
        d.attributes["axes"] = _axes(draw, rank)
    else:
        d.attributes.pop("axes", None)


def break_axes_in_range(draw, d: Draft) -> None:
    """One axis just outside [-r, r-1]."""
    rank = d.inputs[0].ndim
    bad = draw(st.sampled_from([rank, -rank - 1]))
    if "axes" in [p.name for p in d.spec.inputs]:
        d.present[d.port_index("axes")] = True
        d.set_input("axes", np.array([bad], dtype=np.int64))
    else:
        d.attributes["axes"] = [bad]


BREAK = {"axes_in_range": break_axes_in_range}
