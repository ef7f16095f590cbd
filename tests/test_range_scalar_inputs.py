"""Issue 13 item 4: onnx::Range's shape-[1] start, limit and delta. The text says "Scalar." and
onnx's shape inference refuses a non-scalar, while onnx.reference reads any one element; the spec's
policy scalar_inputs allows refusing a shape-[1] input (strict) or reading its one element
(one_element). More than one element, or two dimensions, is refused under both."""
import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import generate
from opconform.model import Case, Expectation, Outcome, RelationBroken, Verdict
from opconform.suites.verdicts import judge

from helpers_oracle import expect

RANGES = ["onnx::Range-11", "onnx::Range-27"]


def _judge(spec_id, inputs, outcome):
    spec, e = expect(spec_id, inputs)
    case = Case(spec_id, {}, tuple(inputs), (True,), e)
    return judge(spec, case, outcome)


def _scalars(*values, dtype=np.float32):
    return [np.array(v, dtype) for v in values]


@pytest.mark.parametrize("spec_id", RANGES)
def test_a_shape_one_start_may_be_refused_or_read_as_its_element(spec_id):
    inputs = [np.array([1.5], np.float32)] + _scalars(4, 1)
    _, e = expect(spec_id, inputs)
    assert e.kind == "outputs" and e.refused_under == {"scalar_inputs": "strict"} and e.relation == "inputs_scalar"
    assert all(a.policies["scalar_inputs"] == "one_element" for a in e.alternatives)
    v, detail, matched = _judge(spec_id, inputs, Outcome("error", message="start should be a scalar"))
    assert v is Verdict.PASS and matched == {"scalar_inputs": "strict"} and "inputs_scalar" in detail
    v, _, matched = _judge(spec_id, inputs, Outcome("ok", [np.array([1.5, 2.5, 3.5], np.float32)]))
    assert v is Verdict.PASS and matched["scalar_inputs"] == "one_element"
    # computed, it is the 1-D range of the one element: not onnx's Loop body's [n, 1], nor other values
    assert _judge(spec_id, inputs, Outcome("ok", [np.array([[1.5], [2.5], [3.5]], np.float32)]))[0] is Verdict.WRONG_SHAPE
    assert _judge(spec_id, inputs, Outcome("ok", [np.array([1.5, 2.5, 3.0], np.float32)]))[0] is Verdict.MISMATCH


@pytest.mark.parametrize("spec_id", RANGES)
def test_scalars_must_be_computed(spec_id):
    inputs = _scalars(1.5, 4, 1)
    _, e = expect(spec_id, inputs)
    assert e.kind == "outputs" and e.refused_under is None
    assert _judge(spec_id, inputs, Outcome("error", message="no"))[0] is Verdict.ERROR


@pytest.mark.parametrize("shape, relation", [((1, 1), "start_rank"), ((2,), "start_one_element"), ((0,), "start_one_element")])
def test_more_than_a_one_element_vector_is_refused_under_both_options(shape, relation):
    inputs = [np.ones(shape, np.int64), np.array(5, np.int64), np.array(1, np.int64)]
    _, e = expect("onnx::Range-11", inputs)
    assert e.kind == "error" and e.relation == relation


def test_evaluate_refuses_under_strict_and_reads_the_element_under_one_element():
    inputs = [np.array(0, np.int32), np.array([3], np.int32), np.array([1], np.int32)]
    with pytest.raises(RelationBroken, match="inputs_scalar"):
        oracle.evaluate("onnx::Range-11", inputs)
    (out,) = oracle.evaluate("onnx::Range-11", inputs, policies={"scalar_inputs": "one_element"})
    assert out.tolist() == [0, 1, 2] and out.dtype == np.int32


def test_refused_under_survives_json():
    _, e = expect("onnx::Range-11", [np.array([0], np.int64), np.array(3, np.int64), np.array(1, np.int64)])
    back = Expectation.from_json(e.to_json())
    assert back.refused_under == {"scalar_inputs": "strict"} and back.relation == "inputs_scalar"
    assert Expectation.from_json(Expectation("outputs").to_json()).refused_under is None


@pytest.mark.parametrize("spec_id", RANGES)
def test_the_generator_draws_shape_one_inputs_as_valid_cases(spec_id):
    cases = generate(specs.load(spec_id), 40, seed=3, profile="ci", expect=oracle.expectation, kind="valid")
    shaped = [c for c in cases if any(np.ndim(x) == 1 for x in c.inputs)]
    assert shaped and len(shaped) < len(cases), "both scalars and shape-[1] inputs are drawn"
    assert all(np.size(x) == 1 and np.ndim(x) <= 1 for c in cases for x in c.inputs)
    assert all(c.expected.refused_under == {"scalar_inputs": "strict"} for c in shaped if c.expected.kind == "outputs")
