"""Verdicts: one per case, from real specs and expectations computed by the oracle."""
import dataclasses

import ml_dtypes
import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import Case, Expectation, Outcome, Tolerance, Verdict
from opconform.suites.verdicts import judge

GND = "onnx::GatherND-13"


def _case(spec_id, inputs, attributes=None, requested=None):
    spec = specs.load(spec_id)
    expected = oracle.expectation(spec, inputs, attributes or {})
    requested = requested or (True,) * len(spec.outputs)
    return spec, Case(spec_id, attributes or {}, tuple(inputs), requested, expected)


@pytest.fixture
def gathernd():
    data = np.array([[1.5, -2.0], [np.nan, 4.0]], np.float32)
    indices = np.array([[0, 1], [1, 0]], np.int64)
    return _case(GND, [data, indices])


def ok(*outputs):
    return Outcome("ok", list(outputs))


def test_pass_when_outputs_agree_nan_included(gathernd):
    spec, case = gathernd
    verdict, detail, matched = judge(spec, case, ok(np.array([-2.0, np.nan], np.float32)))
    assert verdict is Verdict.PASS
    assert "GatherND-13(data: float32[2,2], indices: int64[2,2])" in detail


def test_mismatch_names_element_and_values(gathernd):
    spec, case = gathernd
    verdict, detail, _ = judge(spec, case, ok(np.array([-2.0, 5.0], np.float32)))
    assert verdict is Verdict.MISMATCH
    assert detail.startswith("output output at [1]: got 5.0, expected nan (1 of 2 elements differ) [GatherND-13(")


def test_wrong_shape_and_wrong_dtype_and_missing(gathernd):
    spec, case = gathernd
    assert judge(spec, case, ok(np.array([[-2.0, np.nan]], np.float32)))[0] is Verdict.WRONG_SHAPE
    verdict, detail, _ = judge(spec, case, ok(np.array([-2.0, np.nan], np.float64)))
    assert verdict is Verdict.WRONG_DTYPE and "got element type float64, expected float32" in detail
    assert judge(spec, case, ok(None))[0] is Verdict.MISSING_OUTPUT
    assert judge(spec, case, Outcome("ok", []))[0] is Verdict.MISSING_OUTPUT


def test_refusals_of_valid_cases(gathernd):
    spec, case = gathernd
    verdict, detail, _ = judge(spec, case, Outcome("error", message="boom"))
    assert verdict is Verdict.ERROR and "refused a valid case: boom" in detail
    assert judge(spec, case, Outcome("unsupported", message="no float32"))[0] is Verdict.UNSUPPORTED


def test_crash_and_timeout_always_recorded_as_such(gathernd):
    spec, case = gathernd
    undefined = dataclasses.replace(case, expected=Expectation("undefined", relation="x"))
    for c in (case, undefined):
        assert judge(spec, c, Outcome("crash", message="worker killed by SIGSEGV"))[0] is Verdict.CRASH
        assert judge(spec, c, Outcome("timeout", message="no result"))[0] is Verdict.TIMEOUT


def test_invalid_case_must_be_refused():
    data = np.zeros((2, 2), np.float32)
    spec, case = _case(GND, [data, np.array([[0, 2]], np.int64)])  # index 2 on an axis of size 2
    assert case.expected.kind == "error" and case.expected.relation == "indices_in_bounds"
    verdict, detail, _ = judge(spec, case, ok(np.zeros(1, np.float32)))
    assert verdict is Verdict.ACCEPTED_INVALID and "indices_in_bounds" in detail
    assert judge(spec, case, Outcome("error", message="invalid index"))[0] is Verdict.PASS
    assert judge(spec, case, Outcome("unsupported", message="no"))[0] is Verdict.PASS


def test_undefined_passes_whatever_happens(gathernd):
    spec, case = gathernd
    undefined = dataclasses.replace(case, expected=Expectation("undefined", relation="r"))
    for outcome in (ok(np.zeros(7, np.int8)), Outcome("error"), Outcome("unsupported")):
        assert judge(spec, undefined, outcome)[0] is Verdict.PASS


def test_open_choices_any_alternative_passes_and_is_recorded():
    x = np.array([2.0, np.nan, 0.0, -0.0, np.nan, 2.0], np.float32)
    spec, case = _case("onnx::Unique-11", [x])
    alts = case.expected.alternatives
    assert len(alts) > 1
    for alt in alts:
        verdict, _, matched = judge(spec, case, ok(*alt.outputs))
        assert verdict is Verdict.PASS
        assert all(matched[k] == v or v in matched[k].split("|") for k, v in alt.policies.items())
    distinct_nan = next(a for a in alts if a.policies["nan_equality"] == "distinct")
    assert judge(spec, case, ok(*distinct_nan.outputs))[2]["nan_equality"] == "distinct"
    wrong = [np.asarray(o).copy() for o in alts[0].outputs]
    wrong[3] = wrong[3] + 1  # counts
    verdict, detail, matched = judge(spec, case, ok(*wrong))
    assert verdict is not Verdict.PASS and matched is None and "allowed outcomes" in detail


def test_signed_zero_follows_the_spec(gathernd):
    spec, case = gathernd
    data = np.array([[0.0, -0.0]], np.float32)
    spec, case = _case(GND, [data, np.array([[0, 1]], np.int64)])
    positive = ok(np.array([0.0], np.float32))
    assert judge(spec, case, positive)[0] is Verdict.PASS  # default: -0.0 matches 0.0
    strict = dataclasses.replace(spec, signed_zero="distinct")
    assert judge(strict, case, positive)[0] is Verdict.MISMATCH
    assert judge(strict, case, ok(np.array([-0.0], np.float32)))[0] is Verdict.PASS


def test_tolerance_per_spec_default_exact(gathernd):
    spec, case = gathernd
    near = ok(np.array([-2.0001, np.nan], np.float32))
    assert judge(spec, case, near)[0] is Verdict.MISMATCH
    loose = dataclasses.replace(spec, tolerance=Tolerance(rtol=1e-3))
    assert judge(loose, case, near)[0] is Verdict.PASS
    assert judge(loose, case, ok(np.array([-2.1, np.nan], np.float32)))[0] is Verdict.MISMATCH


def test_exact_integers_strings_and_extended_floats():
    ints = np.array([[2**40 + 1, 3]], np.int64)
    spec, case = _case(GND, [ints, np.array([[0, 0]], np.int64)])
    assert judge(spec, case, ok(np.array([2**40 + 1], np.int64)))[0] is Verdict.PASS
    assert judge(spec, case, ok(np.array([2**40], np.int64)))[0] is Verdict.MISMATCH
    words = np.array([["a", "b"]], dtype=object)
    spec, case = _case(GND, [words, np.array([[0, 1]], np.int64)])
    assert judge(spec, case, ok(np.array(["b"], dtype=object)))[0] is Verdict.PASS
    assert judge(spec, case, ok(np.array(["B"], dtype=object)))[0] is Verdict.MISMATCH
    bf = np.array([[1.5, np.nan]], ml_dtypes.bfloat16)
    spec, case = _case(GND, [bf, np.array([[0, 1]], np.int64)])
    assert judge(spec, case, ok(np.array([np.nan], ml_dtypes.bfloat16)))[0] is Verdict.PASS
    assert judge(spec, case, ok(np.array([np.nan], np.float16)))[0] is Verdict.WRONG_DTYPE
