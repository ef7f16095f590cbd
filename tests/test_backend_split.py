"""Variadic outputs: Split's parts are output slots, one per part, each requested, built, returned
and judged on its own (Outcome.outputs and the expected alternatives are per slot)."""
import numpy as np
import pytest

from opconform import backends, specs
from opconform.model import Case, Outcome, Verdict
from opconform.oracle import expectation
from opconform.suites import verdicts

pytestmark = pytest.mark.backend


def _split_case(spec):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    split = np.array([1, 2, 3], np.int64)
    inputs, attrs = (x, split), {"axis": 0}
    constant = tuple(p.constant for p in spec.inputs)
    return Case(spec.id, attrs, inputs, (True,), expectation(spec, inputs, attrs), None, constant, "test:split3")


@pytest.mark.parametrize("backend", ["onnxruntime", "reference"])
def test_split_into_three_parts_passes(backend):
    if backend != "reference":
        pytest.importorskip(backend)  # the backend's own package; any other failure fails
    spec = specs.load("onnx::Split-18")
    case = _split_case(spec)
    want = case.expected.alternatives[0].outputs
    # the oracle's three parts agree with NumPy's own split at the same points
    assert [w.tolist() for w in want] == [p.tolist() for p in np.split(case.inputs[0], [1, 3], axis=0)]
    outcome = backends.get(backend).execute(spec, case)
    assert outcome.status == "ok", outcome.message
    assert [np.shape(o) for o in outcome.outputs] == [(1, 2), (2, 2), (3, 2)]
    verdict, detail, _ = verdicts.judge(spec, case, outcome)
    assert verdict is Verdict.PASS, detail


def test_a_wrong_or_missing_part_is_caught():
    spec = specs.load("onnx::Split-18")
    case = _split_case(spec)
    right = [np.asarray(o) for o in case.expected.alternatives[0].outputs]
    wrong = right[:2] + [right[2] + 1]
    assert verdicts.judge(spec, case, Outcome("ok", wrong))[0] is Verdict.MISMATCH
    assert verdicts.judge(spec, case, Outcome("ok", right[:2]))[0] is Verdict.MISSING_OUTPUT
    assert verdicts.judge(spec, case, Outcome("ok", [right[0], right[2], right[1]]))[0] is Verdict.WRONG_SHAPE
