"""Issue 13 item 4: onnx::Unique's open choices that were hard-coded are policies: whether -0.0 and
0.0 are one value (zero_equality), the ascending order of complex numbers (complex_order) and of
strings (string_order). Each option's outputs pass, an output neither allows fails. The oracle runs
only the policies that can matter for an input (policies_in_play), which must not change what it
allows."""
import numpy as np
import pytest

from opconform import oracle, specs, tensors
from opconform.generator import generate
from opconform.model import Case, Outcome, Verdict
from opconform.oracle.onnx import unique as onnx_unique
from opconform.oracle.openvino import unique as openvino_unique
from opconform.suites.verdicts import judge

from helpers_oracle import expect

UNIQUES = ["onnx::Unique-11", "onnx::Unique-28"]


def _judge_all(spec_id, x, attributes, got):
    """(verdict, matched policies) of all four outputs `got`."""
    spec, e = expect(spec_id, [x], attributes)
    case = Case(spec_id, attributes, (x,), (True,) * 4, e)
    v, _, matched = judge(spec, case, Outcome("ok", list(got)))
    return v, matched


def _outputs(y, first, inverse, counts):
    return [y, np.array(first, np.int64), np.array(inverse, np.int64), np.array(counts, np.int64)]


@pytest.mark.parametrize("spec_id", UNIQUES)
def test_signed_zeros_are_one_value_or_two(spec_id):
    x = np.array([0.0, 1.0, -0.0], np.float32)
    one = _outputs(np.array([0.0, 1.0], np.float32), [0, 1], [0, 1, 0], [2, 1])
    two = _outputs(np.array([-0.0, 0.0, 1.0], np.float32), [2, 0, 1], [1, 2, 0], [1, 1, 1])
    v, matched = _judge_all(spec_id, x, {}, one)
    assert v is Verdict.PASS and matched["zero_equality"] == "equal"
    v, matched = _judge_all(spec_id, x, {}, two)
    assert v is Verdict.PASS and matched["zero_equality"] == "distinct"
    # two values, but +0.0 first: no option orders them so
    wrong = _outputs(np.array([0.0, -0.0, 1.0], np.float32), [0, 2, 1], [0, 2, 1], [1, 1, 1])
    assert _judge_all(spec_id, x, {}, wrong)[0] is Verdict.MISMATCH


def test_signed_zeros_in_complex_parts_and_along_an_axis():
    z = np.array([complex(0.0, 1.0), complex(-0.0, 1.0)], np.complex64)
    _, e = expect("onnx::Unique-11", [z], {})
    assert sorted(len(a.outputs[0]) for a in e.alternatives) == [1, 2]
    rows = np.array([[0.0, 1.0], [-0.0, 1.0]], np.float64)
    _, e = expect("onnx::Unique-11", [rows], {"axis": 0})
    by = {a.policies["zero_equality"]: a.outputs[3].tolist() for a in e.alternatives}
    assert by == {"equal": [2], "distinct": [1, 1]}


@pytest.mark.parametrize("spec_id", UNIQUES)
def test_complex_numbers_sort_lexicographically_or_by_magnitude(spec_id):
    x = np.array([1 + 0j, 2j, -3 + 0j], np.complex64)
    lex = _outputs(np.array([-3 + 0j, 2j, 1 + 0j], np.complex64), [2, 1, 0], [2, 1, 0], [1, 1, 1])
    mag = _outputs(np.array([1 + 0j, 2j, -3 + 0j], np.complex64), [0, 1, 2], [0, 1, 2], [1, 1, 1])
    v, matched = _judge_all(spec_id, x, {}, lex)
    assert v is Verdict.PASS and matched["complex_order"] == "lexicographic"
    v, matched = _judge_all(spec_id, x, {}, mag)
    assert v is Verdict.PASS and matched["complex_order"] == "magnitude"
    wrong = _outputs(np.array([2j, 1 + 0j, -3 + 0j], np.complex64), [1, 0, 2], [1, 0, 2], [1, 1, 1])
    assert _judge_all(spec_id, x, {}, wrong)[0] is Verdict.MISMATCH
    # unsorted: the order of first occurrence, whatever the order of complex numbers
    _, e = expect(spec_id, [x], {"sorted": 0})
    assert len(e.alternatives) == 1


def test_magnitude_order_breaks_ties_by_angle():
    x = np.array([-1 + 0j, 1j, 1 + 0j, -1j], np.complex128)
    _, e = expect("onnx::Unique-11", [x], {})
    mag = next(a for a in e.alternatives if a.policies["complex_order"] == "magnitude")
    assert mag.outputs[0].tolist() == [-1j, 1 + 0j, 1j, -1 + 0j]  # angles -pi/2, 0, pi/2, pi


@pytest.mark.parametrize("spec_id", UNIQUES)
def test_strings_sort_by_code_point_or_by_utf16_code_unit(spec_id):
    x = np.array(["\uffff", "\U00010000", "a"], dtype=object)
    point = _outputs(np.array(["a", "\uffff", "\U00010000"], dtype=object), [2, 0, 1], [1, 2, 0], [1, 1, 1])
    unit = _outputs(np.array(["a", "\U00010000", "\uffff"], dtype=object), [2, 1, 0], [2, 1, 0], [1, 1, 1])
    v, matched = _judge_all(spec_id, x, {}, point)
    assert v is Verdict.PASS and matched["string_order"] == "code_point"
    v, matched = _judge_all(spec_id, x, {}, unit)
    assert v is Verdict.PASS and matched["string_order"] == "utf16"
    wrong = _outputs(np.array(["\U00010000", "\uffff", "a"], dtype=object), [1, 0, 2], [1, 0, 2], [1, 1, 1])
    assert _judge_all(spec_id, x, {}, wrong)[0] is Verdict.MISMATCH


HAND_MADE = [
    (np.array([0.0, -0.0, np.nan, 1.0, np.nan, -0.0], np.float32), {}),
    (np.array([[0.0, np.nan], [-0.0, np.nan], [0.0, np.nan]], np.float64), {"axis": 0}),
    (np.array([complex(-0.0, 1), complex(0.0, 1), complex(np.nan, 0), 2j, -2 + 0j], np.complex128), {}),
    (np.array([[1 + 1j, 2j], [1 - 1j, 2j]], np.complex64), {"axis": 1}),
    (np.array(["b", "\U00010000", "\uffff", "b"], dtype=object), {"sorted": 1}),
    (np.array(["b", "\U00010000", "\uffff", "b"], dtype=object), {"sorted": 0}),
    (np.array([-0.0, 3.0], np.float16), {"sorted": 0}),
]


def _allowed(spec_id, inputs, attributes):
    _, e = expect(spec_id, list(inputs), attributes)
    assert e.kind == "outputs"
    return {tuple(tensors.digest(o) for o in a.outputs) for a in e.alternatives}


@pytest.mark.parametrize("spec_id", UNIQUES + ["openvino::Unique-10"])
def test_running_only_the_policies_in_play_allows_the_same_outputs(spec_id, monkeypatch):
    spec = specs.load(spec_id)
    drawn = [(c.inputs, c.attributes) for c in generate(spec, 40, seed=11, profile="ci", expect=oracle.expectation,
                                                        kind="valid")]
    if spec.dialect == "onnx":
        drawn += [((x,), a) for x, a in HAND_MADE]
    module = onnx_unique if spec.dialect == "onnx" else openvino_unique
    lean = [_allowed(spec_id, inputs, a) for inputs, a in drawn]
    monkeypatch.delattr(module, "policies_in_play")
    assert lean == [_allowed(spec_id, inputs, a) for inputs, a in drawn]
    assert any(len(x) > 1 for x in lean)  # some input has choices that matter
