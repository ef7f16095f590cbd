"""opconform.compare: the one element-wise comparison the verdicts, the report's highlighting, the
official node cases and the spec examples share (issue 12)."""
from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

from opconform import compare, oracle, specs, tensors
from opconform.compare import Rules, check, differing
from opconform.model import Alternative, Case, Expectation, Outcome, Result, Tolerance, Verdict
from opconform.reports import failure
from opconform.suites import verdicts

NAN, INF = np.nan, np.inf
DISTINCT = Rules(signed_zero="distinct")


def f32(*values) -> np.ndarray:
    return np.array(values, np.float32)


def nan_f32(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


# signed zero

def test_signed_zero_equal_by_default_distinct_when_the_spec_says_so():
    got, want = f32(-0.0, 0.0, -0.0), f32(0.0, -0.0, -0.0)
    assert differing(got, want).tolist() == [False, False, False]
    assert differing(got, want, DISTINCT).tolist() == [True, True, False]


def test_distinct_signed_zero_holds_under_a_tolerance_too():
    loose = Rules(Tolerance(rtol=0.5, atol=1e-3), "distinct")
    assert differing(f32(-0.0, 1e-4), f32(0.0, 0.0), loose).tolist() == [True, False]


def test_signed_zero_per_part_of_complex():
    got = np.array([complex(0.0, -0.0), complex(-0.0, 1.0)], np.complex64)
    want = np.array([complex(0.0, 0.0), complex(0.0, 1.0)], np.complex64)
    assert differing(got, want).tolist() == [False, False]
    assert differing(got, want, DISTINCT).tolist() == [True, True]


def test_invalid_signed_zero_policy_is_refused():
    with pytest.raises(ValueError, match="signed_zero"):
        Rules(signed_zero="maybe")


# NaN and infinities

def test_nan_matches_nan_whatever_its_payload_and_sign():
    quiet, payload, negative = nan_f32(0x7FC00000), nan_f32(0x7FC00123), nan_f32(0xFFC00000)
    signalling = nan_f32(0x7FA00000)
    got = np.array([quiet, payload, negative, signalling], np.float32)
    want = np.array([payload, quiet, quiet, quiet], np.float32)
    with np.errstate(all="raise"):  # widening a signalling NaN must not warn
        assert not differing(got, want).any()
    assert differing(f32(NAN, 1.0), f32(1.0, NAN), Rules(Tolerance(rtol=1.0, atol=1.0))).tolist() == [True, True]


def test_infinity_matches_only_the_same_infinity_even_under_a_tolerance():
    loose = Rules(Tolerance(rtol=0.5))
    got, want = f32(INF, -INF, 3e38, INF), f32(INF, -INF, INF, -INF)
    assert differing(got, want, loose).tolist() == [False, False, True, True]


def test_nan_in_one_of_the_expected_alternatives():
    spec = specs.load("onnx::GatherND-13")
    data, indices = f32(1.0, NAN).reshape(1, 2), np.array([[0, 1]], np.int64)
    alts = (Alternative({"choice": "number"}, (f32(1.0),)), Alternative({"choice": "nan"}, (f32(NAN),)))
    case = Case(spec.id, {}, (data, indices), (True,), Expectation("outputs", alts))
    verdict, _, matched = verdicts.judge(spec, case, Outcome("ok", [f32(nan_f32(0x7FC00042))]))
    assert verdict is Verdict.PASS and matched == {"choice": "nan"}
    verdict, detail, _ = verdicts.judge(spec, case, Outcome("ok", [f32(2.0)]))
    assert verdict is Verdict.MISMATCH and "closest of 2 allowed outcomes" in detail


# tolerances

def test_tolerance_is_relative_to_the_expected_value():
    rules = Rules(Tolerance(rtol=0.1))
    # |1.105 - 1.0| = 0.105 > 0.1 * |expected|, though <= 0.1 * |actual|
    assert differing(f32(1.105, 1.09), f32(1.0, 1.0), rules).tolist() == [True, False]
    assert differing(f32(1e-7), f32(0.0), Rules(Tolerance(atol=1e-6))).tolist() == [False]


def test_tolerance_per_element_type():
    rules = Rules(Tolerance(per_type={"float16": (1e-2, 0.0)}))
    assert differing(np.array([1.005], np.float16), np.array([1.0], np.float16), rules).tolist() == [False]
    assert differing(f32(1.005), f32(1.0), rules).tolist() == [True]


# integers, bool, strings

def test_integers_exact_never_widened_and_never_within_a_tolerance():
    big = np.array([2**53 + 1, 2**62 + 1], np.int64)
    assert differing(big, big - 1).tolist() == [True, True]  # float64 would read both pairs as equal
    assert differing(np.array([2**64 - 1], np.uint64), np.array([2**64 - 2], np.uint64)).tolist() == [True]
    assert differing(np.array([2, 3], np.int32), np.array([3, 3], np.int32), Rules(Tolerance(rtol=1.0))).tolist() == [True, False]
    assert differing(np.array([1, -2], ml_dtypes.int4), np.array([1, -3], ml_dtypes.int4)).tolist() == [False, True]


def test_bools():
    assert differing(np.array([True, False]), np.array([True, True])).tolist() == [False, True]


def test_strings_exact_bytes_read_as_utf8():
    got = np.array(["a", b"caf\xc3\xa9", "B", ""], dtype=object)
    want = np.array(["a", "café", "b", ""], dtype=object)
    assert differing(got, want).tolist() == [False, False, True, False]
    assert differing(np.array(["1"], dtype=object), np.array([1], np.int64)).tolist() == [True]


def test_a_port_rule_for_texts_replaces_exact_text():
    lower = Rules(texts=lambda a, e: np.char.lower(a.astype(str)) == np.char.lower(e.astype(str)))
    assert differing(np.array(["ABC", "x"], dtype=object), np.array(["abc", "y"], dtype=object), lower).tolist() == [False, True]


# ml_dtypes floats

def test_bfloat16_and_float8():
    bf = ml_dtypes.bfloat16
    got = np.array([1.5, NAN, -0.0, 1.0078125], bf)
    want = np.array([1.5, NAN, 0.0, 1.0], bf)
    assert differing(got, want).tolist() == [False, False, False, True]
    assert differing(got, want, DISTINCT).tolist() == [False, False, True, True]
    f8 = ml_dtypes.float8_e4m3fn
    assert differing(np.array([NAN, 448], f8), np.array([NAN, 416], f8)).tolist() == [False, True]
    found = check(np.array([NAN], bf), np.array([NAN], np.float16))
    assert found.kind == "element type" and found.message == "got element type bfloat16, expected float16"


# shapes, element types and messages

def test_shape_mismatch():
    assert differing(f32(1, 2), f32(1, 2).reshape(2, 1)) is None
    found = check(f32(1, 2), f32(1, 2).reshape(2, 1))
    assert found.kind == "shape" and found.message == "got shape [2], expected [2, 1]"
    assert found.about("output y") == "output y: got shape [2], expected [2, 1]"


def test_element_type_first_then_values_whatever_the_types():
    found = check(np.array([1.0, 2.0]), f32(1, 3))
    assert found.kind == "element type" and found.message == "got element type float64, expected float32"
    assert differing(np.array([1.0, 2.0]), f32(1, 3)).tolist() == [False, True]


def test_values_message_names_the_first_differing_element():
    found = check(f32(1, 2, 5, 7).reshape(2, 2), f32(1, 3, 5, 8).reshape(2, 2))
    assert found.kind == "values" and found.mask.tolist() == [[False, True], [False, True]]
    assert found.about("output y") == "output y at [0, 1]: got 2.0, expected 3.0 (2 of 4 elements differ)"
    assert check(np.float32(-0.0), np.float32(0.0), DISTINCT).message == "at []: got -0.0, expected 0.0 (1 of 1 elements differ)"
    assert check(f32(NAN, -0.0), f32(NAN, 0.0)) is None
    assert check(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)) is None


def test_rules_of_a_spec():
    spec = specs.load("onnx::Abs-13")
    rules = Rules.of(spec)
    assert rules.signed_zero == "distinct" == spec.signed_zero and rules.tolerance == spec.tolerance


# the verdict and the report's highlighting agree

def _judged(spec_id: str, inputs: list, got: list, attributes: dict | None = None) -> tuple[Verdict, failure.FailureView]:
    spec, attributes = specs.load(spec_id), attributes or {}
    case = Case(spec_id, attributes, tuple(inputs), (True,) * len(spec.outputs), oracle.expectation(spec, inputs, attributes))
    verdict, detail, _ = verdicts.judge(spec, case, Outcome("ok", got))
    r = Result(case_id=case.id, spec_id=spec_id, backend="alpha", verdict=verdict, detail=detail,
               case=case.to_json(), got=[tensors.encode(g) for g in got])
    return verdict, failure.failure_view(r, None)


def _marked(v: failure.FailureView) -> list[bool]:
    return [cell.differs for _, cells in v.outputs[0].got.rows for cell in cells]


def test_abs_returning_negative_zero_is_a_mismatch_and_the_element_is_marked():
    x = f32(0.0, -0.0, -2.0)
    verdict, v = _judged("onnx::Abs-13", [x], [f32(0.0, -0.0, 2.0)])
    assert verdict is Verdict.MISMATCH
    assert v.result.detail.startswith("output Y at [1]: got -0.0, expected 0.0 (1 of 3 elements differ)")
    assert _marked(v) == [False, True, False]
    assert v.outputs[0].diff.count == 1 and v.outputs[0].diff.listing == [("[1]", "0.0", "-0.0")]


def test_numeric_text_marks_only_what_the_verdict_counts():
    """Cast to string: "1e+05" for 1e5 is a conforming text; only the wrong number is marked."""
    x = f32(1e5, 2.0)
    verdict, v = _judged("onnx::Cast-13", [x], [np.array(["1e+05", "3"], dtype=object)], {"to": 8})
    assert verdict is Verdict.MISMATCH and "at [1]" in v.result.detail
    assert _marked(v) == [False, True]


def test_highlighting_follows_the_spec_tolerance():
    spec = specs.load("onnx::Abs-13")
    loose = dataclasses.replace(spec, tolerance=Tolerance(rtol=0.1))
    rules = verdicts.port_rules(loose, verdicts.slot_port(loose, 0), [f32(1.0)])
    assert differing(f32(1.05), f32(1.0), rules).tolist() == [False]
    assert differing(f32(-0.0), f32(0.0), rules).tolist() == [True]  # still distinct
    assert compare.DEFAULT == Rules()
