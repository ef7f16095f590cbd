"""Elementwise binary, variadic, comparison and logical operators: inputs whose shapes are
multidirectional-broadcast compatible (NumPy rules), rank 0 and size-1 dimensions included.

Breaking the operator's `broadcastable` relation: one input gets a dimension that neither
matches nor is 1 where another input has a dimension > 1.
"""
from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def _max_rank(d: Draft) -> int:
    caps = [p.rank_max for p in d.spec.inputs if p.rank_max is not None]
    return min([d.profile.max_rank] + caps)


def inputs(draw, d: Draft) -> None:
    present = [i for i, p in enumerate(d.present) if p]
    if not present:
        d.inputs = [None] * len(d.present)
        return
    min_rank = max(p.rank_min for p in d.spec.inputs)
    bs = draw(hnp.mutually_broadcastable_shapes(num_shapes=len(present), min_dims=min_rank,
                                                max_dims=max(min_rank, _max_rank(d)), min_side=0,
                                                max_side=d.profile.max_side).filter(
        lambda b: all(shapes.fits(s, d.profile) for s in b.input_shapes)))
    d.inputs = [None] * len(d.present)
    for i, shape in zip(present, bs.input_shapes):
        d.inputs[i] = input_array(draw, d, i, shape=shape)


def break_broadcastable(draw, d: Draft) -> None:
    """Give one input a dimension that clashes with another input's: k+1 against k >= 1 (or 2
    against an empty dimension), so neither equals the other and neither is 1."""
    present = [i for i, x in enumerate(d.inputs) if x is not None]
    i = draw(st.sampled_from(present))
    x = d.inputs[i]
    others = [d.inputs[j] for j in present if j != i]
    rank = max([x.ndim] + [o.ndim for o in others]) or 1
    rank = max(rank, 1)
    target = [1] * rank
    for o in others:
        for k, s in enumerate(o.shape[::-1]):
            if s != 1:
                target[rank - 1 - k] = s
    axis = draw(st.integers(0, rank - 1))
    clash = 2 if target[axis] in (0, 1) else target[axis] + 1
    if target[axis] == 1:  # nobody constrains this axis yet: make another input's dimension clash too
        j = present[0] if present[0] != i else present[-1]
        if j == i:
            return
        y = d.inputs[j]
        yshape = [1] * (rank - y.ndim) + list(y.shape)
        yshape[axis] = 3
        d.inputs[j] = input_array(draw, d, j, shape=tuple(yshape))
        clash = 2
    shape = [1] * (rank - x.ndim) + list(x.shape)
    shape[axis] = clash
    d.inputs[i] = input_array(draw, d, i, shape=tuple(shape))


BREAK = {"broadcastable": break_broadcastable}
