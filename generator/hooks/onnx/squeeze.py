"""Hook for onnx::Squeeze: data with size-1 dims and axes picking some of them (random axes
rarely pick only 1s)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._layout import maybe_ints, set_ints


def inputs(draw, d: Draft) -> None:
    rank = draw(shapes.ranks(d.port("data"), d.profile))
    ones = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
    shape = tuple(1 if one else s for one, s in zip(ones, draw(shapes.shapes(rank, d.profile))))
    d.inputs = [input_array(draw, d, 0, shape=shape), None]
    picked = [i for i, one in enumerate(ones) if one and draw(st.booleans())]
    if picked:
        maybe_ints(draw, d, "axes", [i - rank if draw(st.booleans()) else i for i in picked])
    else:
        d.present[1] = False


def _break_not_one(draw, d: Draft) -> None:
    data = d.input("data")
    big = [i for i, s in enumerate(data.shape) if s != 1]
    if not big:
        data = np.concatenate([data, data], axis=0) if data.ndim else data.reshape(1).repeat(2)
        d.set_input("data", data)
        big = [0]
    set_ints(d, "axes", [draw(st.sampled_from(big))])


def _break_range(draw, d: Draft) -> None:
    r = d.input("data").ndim
    set_ints(d, "axes", [draw(st.sampled_from([r, -r - 1]))])


BREAK = {"squeezed_dims_are_one": _break_not_one, "axes_in_range": _break_range}
