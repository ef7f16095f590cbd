"""An oracle's outputs are arrays, a 0-d output too. NumPy answers a reduction of a vector
(np.argmax) with a scalar (np.int64), and a case holding that scalar was read by every tensors-only
backend as one that answers a sequence, optional or map: `unsupported`, never run (287 of IREE's
first 68,500 ci cases, of 29 spec versions: Bernoulli, Dropout, MatMulInteger, Clip, the
reductions, ArgMax, ArgMin, HardSigmoid, Pow, BitCast, Cast, ...)."""
import numpy as np

from opconform import oracle, specs
from opconform.backends.base import Backend
from opconform.model import Case
from opconform.suites import plan


def _argmax_of_a_vector() -> tuple:
    spec = specs.load("onnx::ArgMax-13")
    x = np.array([1.0, 3.0, 2.0], np.float32)
    attributes = {"axis": 0, "keepdims": 0}
    return spec, Case(spec.id, attributes, (x,), (True,), oracle.expectation(spec, (x,), attributes))


def test_a_zero_dimensional_output_is_an_array():
    spec, case = _argmax_of_a_vector()
    (expected,) = case.expected.alternatives[0].outputs
    assert isinstance(expected, np.ndarray) and expected.shape == () and expected == 1
    (evaluated,) = oracle.evaluate(spec, case.inputs, case.attributes)
    assert isinstance(evaluated, np.ndarray) and evaluated.shape == ()


def test_a_tensors_only_backend_runs_a_case_whose_output_has_no_dimensions():
    spec, case = _argmax_of_a_vector()
    assert not Backend.takes_containers
    assert Backend().refusal(spec, case) is None


def test_planned_cases_expect_arrays_where_their_ports_are_tensors():
    """The ci plans of the specs that had such cases, as the runner holds them (not read back
    from JSON, which makes arrays of everything)."""
    for spec_id in ("onnx::ArgMax-13", "onnx::Bernoulli-22", "onnx::BitCast-26", "onnx::Dropout-1", "onnx::Clip-13",
                    "onnx::MatMulInteger-10", "onnx::ReduceLogSumExp-13", "onnx::Pow-15"):
        for case in plan.cases_for(spec_id, "ci", 0).cases:
            for alternative in case.expected.alternatives:
                scalars = [type(y).__name__ for y in alternative.outputs if isinstance(y, np.generic)]
                assert not scalars, f"{spec_id} case {case.id}: expected outputs {scalars}, not arrays"
