"""Standard ONNX operators added with one spec file and one oracle module each, no generator hook
(issue 12: adding an elementwise, indexing or reduction operator needs no hook; issue 15 item 10):
their valid draws are rarely rejected, every error relation gets must-refuse cases that break it
first, the two solver forms they brought hold and break what they say, and the oracles' subtle
points (CumProd's integer overflow and exclusive shift, BitCast's sub-byte and bool bits,
RMSNormalization's stash type) answer as the text does."""
from __future__ import annotations

from collections import Counter

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers_generator import assert_must_refuse_drafts, draft_of
from opconform import oracle, specs
from opconform.generator import hooks, sampling, solver, strategies
from opconform.model import RelationBroken

ADDED = ["onnx::Swish-24", "onnx::CumProd-26", "onnx::BitCast-26", "onnx::StringConcat-20",
         "onnx::RMSNormalization-23", "onnx::SwiGLU-28", "onnx::TensorScatter-24"]


@pytest.mark.parametrize("sid", ADDED)
@pytest.mark.parametrize("t", [0, 2])
def test_added_operators_draw_without_a_hook_and_rarely_reject(sid, t):
    spec = specs.load(sid)
    assert hooks.module_for(spec) is None
    log: list[str] = []
    rate = sampling.rejection_rate(spec, "ci", 60, t=t, log=log)
    assert rate <= 0.10, f"{rate:.0%} of valid draws rejected: {Counter(log).most_common(3)}"


@pytest.mark.parametrize("sid", ADDED)
def test_every_error_relation_of_the_added_operators_gets_must_refuse_cases(sid):
    """Each draft counted (no retries): some tries of each relation give a case, and every case
    breaks its relation first."""
    spec = specs.load(sid)
    relations = strategies.error_relations(spec)
    assert relations
    for relation in relations:
        assert_must_refuse_drafts(spec, relation, tries=10, at_least=3)


def _forms(sid: str) -> set[tuple[str, str, str]]:
    return {(f.relation, f.form, f.target) for f in solver.compile_plan(specs.load(sid)).fixes}


def test_rank_not_and_attribute_choice_forms_are_read():
    assert ("axis_scalar", "rank-not", "axis") in _forms("onnx::CumProd-26")
    assert ("axis_scalar", "rank-not", "axis") in _forms("onnx::CumSum-14")
    assert ("same_bit_width", "choice", "to") in _forms("onnx::BitCast-26")
    assert ("float_needs_fmod", "choice", "fmod") in _forms("onnx::Mod-13")
    # in a disjunction `rank(indices) != rank(data)` is a guard, not a fix that would break same_rank
    assert not [f for f in _forms("onnx::GatherElements-13") if f[1] == "rank-not"]


@settings(max_examples=20, deadline=None, database=None)
@given(st.data(), st.sampled_from([np.int8, np.float16, np.float32, np.int64, np.complex128]))
def test_the_attribute_choice_fix_sets_a_listed_value_that_holds(data, dtype):
    spec = specs.load("onnx::BitCast-26")
    width = np.dtype(dtype).itemsize * 8
    wrong = 7 if width != 64 else 1  # int64 or float32: another width
    d = draft_of(spec, [np.zeros((2,), dtype)], {"to": wrong})
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.attributes["to"] in spec.attribute("to").allowed
    assert specs.first_broken(spec, d.inputs, d.attributes) is None
    solver.breakers(spec)["same_bit_width"](data.draw, d)
    assert specs.first_broken(spec, d.inputs, d.attributes).id == "same_bit_width"


@settings(max_examples=20, deadline=None, database=None)
@given(st.data())
def test_the_rank_not_fix_draws_another_allowed_rank(data):
    spec = specs.load("onnx::CumProd-26")
    d = draft_of(spec, [np.ones((2, 3), np.float32), np.array([1], np.int64)])
    solver.compile_plan(spec).apply(data.draw, d)
    assert d.inputs[1].ndim == 0


# ------------------------------------------------------------------ oracles
def _outcome(sid, inputs, attributes=None):
    return oracle.expectation(specs.load(sid), inputs, attributes or {})


def test_cumprod_integer_overflow_is_undefined_exactly_past_the_range():
    sid, axis = "onnx::CumProd-26", np.array(0, np.int64)
    at_bound = _outcome(sid, [np.array([-2 ** 16, 2 ** 15], np.int32), axis])
    assert at_bound.kind == "outputs" and at_bound.alternatives[0].outputs[0].tolist() == [-2 ** 16, -2 ** 31]
    past = _outcome(sid, [np.array([2 ** 16, 2 ** 15], np.int32), axis])
    assert (past.kind, past.relation) == ("undefined", "integer_overflow")
    # a zero first keeps every later running product at 0, whatever follows
    zero = _outcome(sid, [np.array([0, 2 ** 62, 2 ** 62], np.int64), axis])
    assert zero.kind == "outputs" and zero.alternatives[0].outputs[0].tolist() == [0, 0, 0]
    # uint64 just under and just past 2**64 (float64 cannot tell them apart)
    under = _outcome(sid, [np.array([2 ** 32 - 1, 2 ** 32 + 1], np.uint64), axis])
    assert under.kind == "outputs" and int(under.alternatives[0].outputs[0][1]) == 2 ** 64 - 1
    over = _outcome(sid, [np.array([2 ** 32, 2 ** 32], np.uint64), axis])
    assert over.kind == "undefined"


def test_cumprod_exclusive_shifts_instead_of_dividing():
    """An exclusive product divided back out of the inclusive one would make 0 * inf NaN."""
    spec = specs.load("onnx::CumProd-26")
    x = np.array([[0.0, np.inf, 2.0]], np.float32)
    for reverse, want in ((0, [1.0, 0.0, np.nan]), (1, [np.inf, 2.0, 1.0])):
        y = oracle.evaluate(spec, [x, np.array(1, np.int32)], {"exclusive": 1, "reverse": reverse})[0]
        np.testing.assert_array_equal(y, np.array([want], np.float32))


def test_cumprod_float_running_product_in_the_input_type_is_an_alternative():
    """1e30 * 1e30 is inf in float32 and stays inf there; in float64 the product comes back."""
    spec = specs.load("onnx::CumProd-26")
    exp = oracle.expectation(spec, [np.array([1e30, 1e30, 1e-30], np.float32), np.array(0, np.int32)], {})
    e30 = float(np.float32(1e30))
    got = {tuple(a.outputs[0].tolist()) for a in exp.alternatives}
    assert got == {(e30, np.inf, float(np.float32(e30 * e30 * float(np.float32(1e-30))))), (e30, np.inf, np.inf)}


def test_bitcast_reads_sub_byte_bits_and_refuses_bytes_that_are_no_bool():
    spec = specs.load("onnx::BitCast-26")
    x = np.array([-1, -8, 7, 0], ml_dtypes.int4)
    assert oracle.evaluate(spec, [x], {"to": 21})[0].astype(np.int64).tolist() == [15, 8, 7, 0]  # uint4
    f4 = oracle.evaluate(spec, [np.array([8, 15], np.uint8).astype(ml_dtypes.uint4)], {"to": 23})[0]
    assert f4.astype(np.float32).tolist() == [0.0, -6.0] and np.signbit(f4.astype(np.float32)[0])  # -0.0, -6
    assert oracle.evaluate(spec, [np.array([1, 0], np.uint8)], {"to": 9})[0].tolist() == [True, False]
    assert _outcome("onnx::BitCast-26", [np.array([2], np.uint8)], {"to": 9}).kind == "undefined"
    fp8 = np.array([2], np.uint8).view(ml_dtypes.float8_e4m3fn)  # a subnormal whose byte is 2
    assert _outcome("onnx::BitCast-26", [fp8], {"to": 9}).relation == "bool_bytes_are_bools"


def test_rmsnormalization_computes_stage_one_in_the_stash_type():
    """300 * 300 passes float16's 65504: under stash_type 10 the RMS is inf and Y is 0; under the
    default float32 stash Y is scale."""
    spec = specs.load("onnx::RMSNormalization-23")
    x, scale = np.array([[300.0, 300.0]], np.float32), np.array([2.0, 3.0], np.float32)
    assert oracle.evaluate(spec, [x, scale], {"epsilon": 0.0})[0].tolist() == [[2.0, 3.0]]
    assert oracle.evaluate(spec, [x, scale], {"epsilon": 0.0, "stash_type": 10})[0].tolist() == [[0.0, 0.0]]


def test_rmsnormalization_rounds_normalized_to_x_type_before_a_wider_scale():
    """X float16 and scale float32: Normalized is cast back to float16 (the text) before the
    float32 product, so Y carries float16's rounding, not float32's."""
    spec = specs.load("onnx::RMSNormalization-23")
    thirds = oracle.evaluate(spec, [np.array([1.0, 2.0], np.float16), np.array([1.0], np.float32)], {"epsilon": 0.0})[0]
    assert thirds.dtype == np.float32 and thirds.tolist() == [float(np.float16(1 / np.sqrt(2.5))), float(np.float16(2 / np.sqrt(2.5)))]
