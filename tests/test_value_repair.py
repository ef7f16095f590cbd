"""Elementwise value relations are held by replacing the elements that break them: a certify row
pinned to an integer type of ReduceLogSum (values in (0, 1024]) or to bfloat16 scores of
SoftmaxCrossEntropyLoss (no infinite score) is drawn, where rejecting whole tensors never was."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import oracle, specs
from opconform.generator import sampling, value_repair
from helpers_generator import draft_of
from opconform.generator.values import plain_values


def test_terms_are_the_all_conjuncts_naming_an_input():
    spec = specs.load("onnx::ReduceLogSum-13")
    got = [(t.relation, t.inputs) for t in value_repair.terms(spec)]
    # two conjuncts of integer_values_moderate; axes_in_range names a symbol, not an input
    assert got.count(("integer_values_moderate", ("data",))) == 2
    assert all(rel != "axes_in_range" for rel, _ in got)


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_broken_elements_are_replaced_and_the_rest_kept(data):
    spec = specs.load("onnx::ReduceLogSum-13")
    x = np.array([[5, -3, 0], [2000, 7, 1]], dtype=np.int32)
    d = draft_of(spec, [x])
    value_repair.repair(data.draw, d, value_repair.terms(spec))
    y = d.inputs[0]
    assert y.dtype == np.int32 and y.shape == x.shape
    assert np.all((y > 0) & (y <= 1024)), y
    keep = (x > 0) & (x <= 1024)
    assert np.array_equal(y[keep], x[keep])  # elements that held the relation are untouched
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_a_relation_that_does_not_apply_changes_nothing():
    spec = specs.load("onnx::ReduceLogSum-13")
    x = np.array([-1.5, 0.0, np.inf], dtype=np.float32)  # the relation is for integer types only
    d = draft_of(spec, [x])
    value_repair.repair(lambda s: pytest.fail("nothing to draw"), d, value_repair.terms(spec))
    assert d.inputs[0] is x


def test_a_draft_that_holds_every_relation_draws_nothing():
    spec = specs.load("onnx::ReduceLogSum-13")
    x = np.array([1, 2, 3], dtype=np.uint32)
    d = draft_of(spec, [x])
    value_repair.repair(lambda s: pytest.fail("nothing to draw"), d, value_repair.terms(spec))
    assert d.inputs[0] is x


def test_plain_values_are_of_the_type_and_in_its_range():
    assert plain_values("uint8").dtype == np.uint8 and plain_values("uint8").min() == 0
    f16 = plain_values("float16")
    assert f16.dtype == np.float16 and np.all(np.isfinite(f16)) and np.abs(f16).max() <= 100
    assert plain_values("string").size == 0


@pytest.mark.parametrize("sid", ["onnx::ReduceLogSum-13", "onnx::ReduceLogSum-18", "onnx::SoftmaxCrossEntropyLoss-13"])
def test_certify_rows_held_only_by_elementwise_relations_are_drawn(sid):
    # before: 17, 5 and 8 of these rows were infeasible (integer values in (0, 1024], finite scores)
    spec = specs.load(sid)
    rows = sampling.spec_rows(spec, 3, 0)
    drawn = sampling.generate_rows(spec, rows, 0, profile="certify", expect=oracle.expectation)
    assert drawn.infeasible == []
