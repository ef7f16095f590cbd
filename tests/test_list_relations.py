"""Relations over whole lists are held and broken from the spec alone: Transpose's perm (its
length, a permutation of the rank), the distinct axes of Unsqueeze and Squeeze, the dimensions
Squeeze's axes name being 1, Expand's target shape broadcastable with its input. The hooks that
drew these by hand are gone; valid draws are still rarely rejected, and every error relation their
breakers covered still gets must-refuse cases that break exactly it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import specs
from helpers_generator import draft_of
from opconform.generator import list_relations, sampling, strategies, value_repair

VERSIONS = (13, 21, 23, 24, 25)
I64 = np.int64


def _forms(sid: str) -> list[tuple[str, str, str]]:
    return [(f.relation, f.kind, f.target) for f in list_relations.forms(specs.load(sid))]


def _repaired(draw, sid: str, arrays, attributes=None, broken: str | None = None):
    spec = specs.load(sid)
    d = draft_of(spec, arrays, attributes)
    value_repair.repair(draw, d, value_repair.terms(spec), broken=broken)
    return spec, d


def test_forms_are_read_from_the_relations():
    assert _forms("onnx::Transpose-13") == [("perm_length_is_rank", "length", "perm"),
                                            ("perm_is_permutation", "permutation", "perm")]
    assert _forms("onnx::Unsqueeze-13") == [("axes_unique", "distinct", "axes")]
    # Squeeze's dims form reshapes data; its all(...) term stays value repair's (axes onto 1s)
    assert _forms("onnx::Squeeze-13") == [("axes_unique", "distinct", "axes"), ("squeezed_dims_are_one", "dims", "data")]
    assert ("squeezed_dims_are_one", ("axes",)) in [(t.relation, t.inputs) for t in value_repair.terms(specs.load("onnx::Squeeze-13"))]
    # the input named `shape` is read for its values, not mistaken for the function shape()
    assert _forms("onnx::Expand-13") == [("broadcast_compatible", "broadcast", "shape")]
    assert "broadcast_compatible" not in {t.relation for t in value_repair.terms(specs.load("onnx::Expand-13"))}


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_a_perm_gets_the_rank_and_becomes_a_permutation(data):
    spec, d = _repaired(data.draw, "onnx::Transpose-13", [np.zeros((2, 3, 4), np.float32)], {"perm": [0, 0, 7, 1, 2]})
    assert sorted(d.attributes["perm"]) == [0, 1, 2]
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_an_empty_perm_is_left_out():
    # an ONNX node cannot hold an empty list attribute: rank 0 takes perm's default instead
    spec, d = _repaired(lambda s: pytest.fail("nothing to draw"), "onnx::Transpose-13",
                        [np.zeros((), np.float32)], {"perm": [1]})
    assert "perm" not in d.attributes and specs.first_broken(spec, d.inputs, d.attributes) is None


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_repeated_axes_get_unused_ones_within_the_output_rank(data):
    # output rank 2 + 4 = 6: the candidates are probed as a list of four (a longer list would
    # allow larger axes), and the first 1 keeps its place
    spec, d = _repaired(data.draw, "onnx::Unsqueeze-13", [np.zeros((2, 3), np.float32), np.array([1, 1, -5, 1], I64)])
    axes = d.inputs[1]
    out_rank = 2 + axes.size
    assert axes[0] == 1 and np.all((axes >= -out_rank) & (axes < out_rank))
    assert len(set((axes % out_rank).tolist())) == axes.size
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_squeezed_axes_name_dimensions_of_one(data):
    # either the axes move onto data's 1s or the dimensions they name become 1 (both are drawn)
    spec, d = _repaired(data.draw, "onnx::Squeeze-13", [np.zeros((1, 3, 4), np.float32), np.array([1, -1], I64)])
    data_, axes = d.inputs
    assert data_.ndim == 3 and axes.size >= 1
    assert all(data_.shape[a] == 1 for a in axes.tolist())
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_both_ways_of_holding_squeezed_dims_are_drawn():
    spec = specs.load("onnx::Squeeze-13")
    strategy = strategies.cases(spec, kind="valid", profile="ci")
    got = [c for c in (sampling.draw_one(strategy, f"dims:{k}") for k in range(80)) if c is not None and c.inputs[1] is not None]
    several = [c for c in got if c.inputs[1].size >= 2]
    assert several, "no case squeezes two axes at once"


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_a_target_shape_is_drawn_broadcastable(data):
    spec, d = _repaired(data.draw, "onnx::Expand-13", [np.zeros((3, 1, 2), np.float32), np.array([5, -5], I64)])
    target = d.inputs[1]
    assert target.dtype == I64 and target.ndim == 1 and np.all(target >= 0)
    np.broadcast_shapes((3, 1, 2), tuple(target.tolist()))
    assert specs.first_broken(spec, d.inputs, d.attributes) is None


def test_target_shapes_are_shorter_longer_and_hold_ones_on_either_side():
    shape = (3, 1, 2)
    target = st.composite(lambda draw: tuple(list_relations.broadcastable_to(draw, shape)))()
    got = [sampling.draw_one(target, f"target:{k}") for k in range(200)]
    lengths = {len(t) for t in got}
    assert {0, 1, 2, 3} <= lengths and max(lengths) > 3  # shorter, as long, longer
    assert any(len(t) == 3 and t[0] == 1 for t in got)  # the input's 3 given as 1
    assert any(len(t) >= 2 and t[-2] in (2, 3) for t in got)  # the input's 1 expanded


@pytest.mark.parametrize("sid,relation", [
    ("onnx::Transpose-13", "perm_length_is_rank"), ("onnx::Transpose-25", "perm_is_permutation"),
    ("onnx::Unsqueeze-13", "axes_unique"), ("onnx::Unsqueeze-25", "axes_in_range"),
    ("onnx::Squeeze-13", "axes_in_range"), ("onnx::Squeeze-24", "squeezed_dims_are_one"),
    ("onnx::Expand-13", "broadcast_compatible"), ("onnx::Expand-13", "shape_nonnegative"),
])
def test_breakers_break_exactly_their_relation(sid, relation):
    spec = specs.load(sid)
    strategy = strategies.cases(spec, kind="invalid", profile="ci", relations=[relation])
    got = [c for c in (sampling.draw_one(strategy, f"break:{sid}:{relation}:{k}") for k in range(12)) if c is not None]
    assert len(got) >= 8, f"only {len(got)} of 12 must-refuse draws broke {relation}"
    for c in got:
        failing = [s for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state in ("broken", "unevaluable")]
        assert failing[0].id == relation and failing[0].state == "broken", [s.id for s in failing]
        # an undefined relation may not be evaluable after the break (Expand's output size), never broken
        assert all(s.on_violation == "error" or s.state == "unevaluable" for s in failing), [s.id for s in failing]


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_the_repair_after_a_break_keeps_it(data):
    # axis 3 of a rank-3 tensor is out of range, and names dimension 0 like axis 0 does: the
    # repair holds the other relations (axes distinct, dimensions of 1) without touching it
    spec, d = _repaired(data.draw, "onnx::Squeeze-13", [np.zeros((1, 3, 1), np.float32), np.array([0, 3], I64)],
                        broken="axes_in_range")
    axes = d.inputs[1]
    assert 3 in axes.tolist()
    assert specs.first_broken(spec, d.inputs, d.attributes).id == "axes_in_range"
    statuses = {s.id: s.state for s in specs.check_all(spec, d.inputs, d.attributes)}
    assert statuses["axes_unique"] == "holds"  # undefined: a case breaking it would expect nothing


def test_a_perm_of_the_wrong_length_is_not_made_a_permutation_again():
    spec = specs.load("onnx::Transpose-13")
    d = draft_of(spec, [np.zeros((2, 3), np.float32)], {"perm": [0, 2, 1]})
    value_repair.repair(lambda s: pytest.fail("nothing to draw"), d, value_repair.terms(spec), broken="perm_length_is_rank")
    assert d.attributes["perm"] == [0, 2, 1]
