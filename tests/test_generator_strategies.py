"""The case strategies: validity by construction, invalid cases naming their relation,
determinism, replay by id, shrinking, and the generic machinery on other families."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import find, given, settings

from opconform.generator import cases, generate, has_strategy
from opconform.generator.onnx_model import signature
from tests.helpers_generator import SPEC_IDS, broken_exactly, drawn, load_or_fail


@pytest.mark.parametrize("spec_id", SPEC_IDS)
def test_valid_cases_satisfy_every_relation_and_invalid_break_the_labelled_one(spec_id):
    spec = load_or_fail(spec_id)
    batch = drawn(spec_id, 40, 11)
    kinds = {c.expected.kind for c in batch}
    assert kinds == {"outputs", "error"}, kinds
    for c in batch:
        broken = broken_exactly(spec, c)
        if c.expected.kind == "outputs":
            assert not broken and c.label.startswith("valid")
        else:
            target = c.label.split(";")[0].removeprefix("breaks:")
            assert broken[0] == target == c.expected.relation
            assert spec.relation(target).on_violation == "error"


def test_strategy_in_given_valid_only():
    spec = load_or_fail("onnx::GatherND-13")

    @settings(max_examples=25)
    @given(cases(spec, kind="valid"))
    def check(case):
        assert not broken_exactly(spec, case)
        assert case.spec_id == spec.id and len(case.outputs_requested) == len(spec.outputs)

    check()


def test_expect_is_called_with_inputs_and_explicit_attributes():
    spec = load_or_fail("onnx::Unique-11")
    seen = []

    def expect(s, inputs, attributes):
        seen.append((s.id, len(inputs), dict(attributes)))
        from opconform.generator.strategies import default_expectation
        return default_expectation(s, inputs, attributes)

    got = generate(spec, 5, 0, expect=expect)
    assert len(seen) >= len(got) == 5
    assert all(sid == spec.id and n == 1 for sid, n, _ in seen)


def test_same_seed_same_cases_byte_for_byte_other_seed_other_cases():
    spec = load_or_fail("openvino::Unique-10")
    a, b = generate(spec, 30, 5), generate(spec, 30, 5)
    dump = lambda cs: json.dumps([c.to_json() for c in cs], sort_keys=True).encode()  # noqa: E731
    assert dump(a) == dump(b)
    assert dump(a) != dump(generate(spec, 30, 6))
    assert all(c.seed == 5 for c in a) and len({c.id for c in a}) == 30


def test_case_json_round_trip_keeps_id_and_bits():
    spec = load_or_fail("onnx::Unique-11")
    for c in generate(spec, 30, 2):
        back = type(c).from_json(json.loads(json.dumps(c.to_json())))
        assert back.id == c.id and back.label == c.label
        for x, y in zip(c.inputs, back.inputs):
            assert (x is None) == (y is None)
            if x is not None and x.dtype != object:
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_shrinking_reaches_a_minimal_case():
    """Hypothesis shrinks a case with a NaN in a rank >= 2 input down to rank 2, tiny and plain."""
    spec = load_or_fail("onnx::Unique-11")

    def wanted(case):
        x = case.inputs[0]
        return x.ndim >= 2 and x.dtype == np.float32 and bool(np.isnan(x).any())

    minimal = find(cases(spec, kind="valid"), wanted, settings=settings(max_examples=2000, database=None))
    x = minimal.inputs[0]
    assert x.ndim == 2 and x.size <= 2, x.shape
    assert minimal.attributes == {} and minimal.outputs_requested == (True, False, False, False)


def test_has_strategy_for_the_foundation_specs():
    for spec_id in SPEC_IDS:
        assert has_strategy(load_or_fail(spec_id)), spec_id


def test_signature_shares_models_only_between_equal_structures():
    spec = load_or_fail("onnx::GatherND-13")
    batch = drawn("onnx::GatherND-13", 40, 11)
    sigs = {}
    for c in batch:
        sigs.setdefault(signature(spec, c), []).append(c)
    for group in sigs.values():
        ranks = {tuple(None if x is None else x.ndim for x in c.inputs) for c in group}
        assert len(ranks) == 1
    valid = next(c for c in batch if c.expected.kind == "outputs" and c.inputs[0].size and c.inputs[0].dtype != object)
    other_values = dataclasses.replace(valid, inputs=(np.zeros_like(valid.inputs[0]), valid.inputs[1]))
    assert other_values.id != valid.id and signature(spec, other_values) == signature(spec, valid)
    other_attr = dataclasses.replace(valid, attributes={"batch_dims": 0} if "batch_dims" not in valid.attributes else {})
    assert signature(spec, other_attr) != signature(spec, valid)


@pytest.mark.parametrize("spec_id", ["onnx::Add-14", "onnx::Sum-13", "onnx::ReduceSum-13", "onnx::Relu-14", "onnx::Gather-13"])
def test_families_generate_valid_and_invalid_cases(spec_id):
    """The generic machinery (default, broadcasting, reduction families) on other operators."""
    spec = load_or_fail(spec_id)
    batch = generate(spec, 30, 0)
    assert any(c.expected.kind == "outputs" for c in batch)
    for c in batch:
        if c.expected.kind == "outputs":
            assert not broken_exactly(spec, c)
        else:
            assert broken_exactly(spec, c)[0] == c.expected.relation


def test_broadcasting_family_draws_mixed_shapes():
    spec = load_or_fail("onnx::Add-14")
    pairs = [(c.inputs[0].shape, c.inputs[1].shape) for c in generate(spec, 60, 1, kind="valid")]
    assert any(a != b for a, b in pairs)  # some pair needs broadcasting
    # every pair broadcasts: aligned from the right, each pair of dimensions is equal or holds a 1
    assert all(x == y or 1 in (x, y) for a, b in pairs for x, y in zip(a[::-1], b[::-1])), pairs


def test_reduction_family_draws_negative_and_empty_axes():
    spec = load_or_fail("onnx::ReduceSum-13")
    axes = [c.inputs[1] for c in generate(spec, 80, 1, kind="valid") if c.inputs[1] is not None]
    assert any((a < 0).any() for a in axes) and any(a.size == 0 for a in axes)


def test_unknown_kind_and_profile_are_refused_with_one_line():
    spec = load_or_fail("onnx::GatherND-13")
    with pytest.raises(ValueError, match="kind='odd'; expected one of"):
        cases(spec, kind="odd")
    with pytest.raises(ValueError, match="unknown profile 'huge'"):
        cases(spec, profile="huge")


def test_stress_profile_draws_bigger_tensors():
    spec = load_or_fail("onnx::GatherND-13")
    small = max(c.inputs[0].size for c in generate(spec, 30, 3, kind="valid"))
    big = max(c.inputs[0].size for c in generate(spec, 4, 3, kind="valid", profile="stress"))
    assert small <= 64 < big
