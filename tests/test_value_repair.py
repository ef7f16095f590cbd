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
    # two conjuncts of integer_values_moderate; axes_in_range reads the ints attribute axes,
    # repaired as a list (rank(data) alone is not repaired)
    assert got.count(("integer_values_moderate", ("data",))) == 2
    assert [t for rel, t in got if rel == "axes_in_range"] == [("axes",)]


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
    assert "3.14" in plain_values("string").tolist()  # numbers as text: what conversions read


@pytest.mark.parametrize("sid", ["onnx::ReduceLogSum-13", "onnx::ReduceLogSum-18", "onnx::SoftmaxCrossEntropyLoss-13"])
def test_certify_rows_held_only_by_elementwise_relations_are_drawn(sid):
    # before: 17, 5 and 8 of these rows were infeasible (integer values in (0, 1024], finite scores)
    spec = specs.load(sid)
    rows = sampling.spec_rows(spec, 3, 0)
    drawn = sampling.generate_rows(spec, rows, 0, profile="certify", expect=oracle.expectation)
    assert drawn.infeasible == []


def test_a_scalar_input_is_held_by_its_relation():
    # CumSum's axis: -rank(x) <= values(axis)[0] <= rank(x) - 1 (substituted symbols included: TopK's k)
    terms = {(t.relation, t.inputs, t.scalar) for t in value_repair.terms(specs.load("onnx::CumSum-14"))}
    assert ("axis_in_range", ("axis",), True) in terms
    topk = {t.relation for t in value_repair.terms(specs.load("onnx::TopK-24"))}
    assert {"k_not_negative", "k_within_axis"} <= topk  # through the symbol k = values(K)[0]


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_an_out_of_range_scalar_is_replaced_by_one_in_range(data):
    spec = specs.load("onnx::CumSum-14")
    d = draft_of(spec, [np.zeros((2, 3), np.float32), np.array(7, np.int64)])
    value_repair.repair(data.draw, d, value_repair.terms(spec))
    assert -2 <= int(d.inputs[1]) <= 1 and d.inputs[1].shape == ()


@pytest.mark.parametrize("sid,relation,name", [
    ("onnx::Gather-13", "indices_in_bounds", "indices"),
    ("onnx::NegativeLogLikelihoodLoss-22", "targets_are_classes", "target"),
    ("onnx::TopK-24", "k_within_axis", "K"),
])
def test_value_breakers_break_exactly_their_relation(sid, relation, name):
    spec = specs.load(sid)
    cases = [c for c in sampling.generate(spec, 40, 1, kind="invalid") if c.label.split(";")[0] == f"breaks:{relation}"]
    assert cases, f"no must-refuse case breaks {relation}"
    for c in cases:
        failing = [s.id for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state == "broken"]
        assert failing[0] == relation, failing


def test_an_index_is_broken_one_past_either_end():
    spec = specs.load("onnx::Gather-13")
    cases = [c for c in sampling.generate(spec, 40, 1, kind="invalid") if c.label.split(";")[0] == "breaks:indices_in_bounds"]
    assert cases
    near = 0
    for c in cases:
        data, indices = c.inputs
        axis = c.attributes.get("axis", 0)
        s = data.shape[axis]
        bad = indices[(indices < -s) | (indices >= s)]
        assert bad.size == 1, (s, bad)  # one element moved, the others still in range
        near += int(bad[0]) in (s, -s - 1)
    # mostly one past either end; now and then an edge value of the type (2**31 - 1, ...)
    assert near >= len(cases) / 2, (near, len(cases))


def test_a_term_reading_its_inputs_size_is_marked_sized():
    # Unsqueeze's output rank counts its axes: candidates are probed as a list of the axes' length
    sized = {t.relation: t.sized for t in value_repair.terms(specs.load("onnx::Unsqueeze-13"))}
    assert sized == {"axes_in_range": True}
    assert not any(t.sized for t in value_repair.terms(specs.load("onnx::ReduceLogSum-13")))


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_a_value_is_broken_where_it_can_be(data):
    # Reshape's 0 copies an input dimension: it breaks the relation only past the input's rank,
    # so the breaker looks for a place where some value does
    spec = specs.load("onnx::Reshape-21")
    d = draft_of(spec, [np.zeros((2, 3), np.float32), np.array([3, 2, 1], np.int64)])
    value_repair.breakers(spec)["zero_copies_an_input_dim"](data.draw, d)
    shape = d.inputs[1].tolist()
    assert shape[2] == 0 and shape[:2] == [3, 2], shape
    assert specs.first_broken(spec, d.inputs, d.attributes).id == "zero_copies_an_input_dim"


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_a_value_break_holds_the_inputs_other_terms(data):
    # an axis out of range that names a dimension of 1 (3 % 3 = 0): squeezed_dims_are_one holds
    spec = specs.load("onnx::Squeeze-13")
    d = draft_of(spec, [np.zeros((1, 4, 4), np.float32), np.array([0], np.int64)])
    value_repair.breakers(spec)["axes_in_range"](data.draw, d)
    failing = [s.id for s in specs.check_all(spec, d.inputs, d.attributes) if s.state in ("broken", "unevaluable")]
    assert failing == ["axes_in_range"], (d.inputs[1], failing)


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_the_elements_that_break_the_target_are_kept(data):
    # after the break of axes_in_range, squeezed_dims_are_one's repair would move 7 onto a
    # dimension of 1: the broken element stays, the others are held
    spec = specs.load("onnx::Squeeze-13")
    d = draft_of(spec, [np.zeros((1, 4, 1), np.float32), np.array([0, 7], np.int64)])
    value_repair.repair(data.draw, d, value_repair.terms(spec), broken="axes_in_range")
    assert d.inputs[1].tolist()[1] == 7
    assert specs.first_broken(spec, d.inputs, d.attributes).id == "axes_in_range"
