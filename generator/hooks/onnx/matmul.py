"""Hook for onnx::MatMul: inner dimensions that match and stacks that broadcast (independent
shapes almost never do); 1-D operands included."""
from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    side = st.integers(0, d.profile.max_side)
    m, k, n = draw(side), draw(side), draw(side)
    stacks = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=d.profile.max_side))
    a_shape = (k,) if draw(st.integers(0, 4)) == 0 else stacks.input_shapes[0] + (m, k)
    b_shape = (k,) if draw(st.integers(0, 4)) == 0 else stacks.input_shapes[1] + (k, n)
    if not (shapes.fits(a_shape, d.profile) and shapes.fits(b_shape, d.profile)):
        a_shape, b_shape = (m, k), (k, n)
    d.inputs = [input_array(draw, d, 0, shape=a_shape), input_array(draw, d, 1, shape=b_shape)]


def break_batch_broadcastable(draw, d: Draft) -> None:
    """Stacks of 2 and 3 matrices: the inner dimensions still match, the batch does not broadcast."""
    a, b = d.input("A"), d.input("B")
    a_mat = a.shape[-2:] if a.ndim >= 2 else (1,) + a.shape
    b_mat = b.shape[-2:] if b.ndim >= 2 else b.shape + (1,)
    d.inputs = [input_array(draw, d, 0, shape=(2,) + a_mat), input_array(draw, d, 1, shape=(3,) + b_mat)]


def break_inner_dimensions(draw, d: Draft) -> None:
    """A with one more column than B has rows."""
    a = d.input("A")
    d.set_input("A", input_array(draw, d, 0, shape=a.shape[:-1] + (a.shape[-1] + 1,)))


BREAK = {"batch_broadcastable": break_batch_broadcastable, "inner_dimensions_match": break_inner_dimensions}
