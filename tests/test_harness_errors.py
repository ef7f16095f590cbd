"""opconform's own failures are harness-error, never the backend's: an exception in adapter code
(phase "harness": converting inputs to the runtime's tensors, reading outputs back) inside a
backend's run is opconform's, and real backends take the inputs that once broke that code."""
import ml_dtypes
import numpy as np
import pytest

from opconform import backends, oracle, specs
from opconform.backends.base import HarnessError, phase, phase_of
from opconform.model import Case, Verdict
from opconform.suites.verdicts import judge


def _case(spec_id: str, x: np.ndarray) -> tuple:
    spec = specs.load(spec_id)
    return spec, Case(spec_id, {}, (x,), (True,), oracle.expectation(spec, (x,), {}))


def test_an_exception_is_tagged_with_the_innermost_phase_it_left():
    with pytest.raises(ValueError) as inner:
        with phase("backend"):
            with phase("harness"):
                raise ValueError("in adapter code")
    assert phase_of(inner.value) == "harness"
    with pytest.raises(ValueError) as outer:
        with phase("backend"):
            with phase("harness"):
                pass
            raise ValueError("in the runtime")
    assert phase_of(outer.value) == "backend"
    assert phase_of(ValueError("raised in no phase")) is None


def _broken(*args, **kwargs):
    return np.zeros((), np.float32).view(np.uint8)  # the 0-d view OpenVINO's adapter once took


@pytest.mark.backend
@pytest.mark.parametrize("name, conversion", [
    ("onnxruntime", "opconform.backends.onnxruntime._as_declared"),  # reading outputs back
    ("openvino", "opconform.backends.openvino_common.OpenVinoRuntime._tensor"),  # inputs to tensors
    ("openvino", "opconform.backends.openvino_common.OpenVinoRuntime._numpy"),  # outputs back
    ("reference", "opconform.backends.compiled.ModelIO.place"),  # outputs to their slots
    ("tract", "opconform.backends.compiled.ModelIO.feeds"),  # inputs to the model's names
])
def test_a_broken_adapter_conversion_is_a_harness_error_not_the_backends_error(monkeypatch, name, conversion):
    package = backends.BUILTIN[name][1]
    if package:
        pytest.importorskip(package)
    backend = backends.get(name)
    spec, case = _case("onnx::Abs-13", np.array([-1.5, 2.0], np.float32))
    verdict = judge(spec, case, backend.execute(spec, case))[0]
    assert verdict is Verdict.PASS  # unbroken, the backend answers right: it is not at fault below
    monkeypatch.setattr(conversion, _broken)
    with pytest.raises(HarnessError) as e:
        backend.execute(spec, case)
    assert "ValueError: Changing the dtype of a 0d array" in str(e.value)
    assert "in _broken" in str(e.value)  # where in opconform's code it was raised


@pytest.mark.backend
@pytest.mark.parametrize("spec_id, dtype", [
    ("onnx::Abs-13", ml_dtypes.bfloat16),
    ("onnx::Identity-21", ml_dtypes.bfloat16),
    ("onnx::Identity-21", ml_dtypes.float8_e4m3fn),
    ("onnx::Identity-21", ml_dtypes.float8_e5m2),
])
def test_openvino_takes_0d_tensors_of_the_types_passed_as_raw_bits(spec_id, dtype):
    """Case 3fe11a1889bcebdd: a 0-d bfloat16 input made the adapter's bit copy raise, and that was
    recorded as OpenVINO's error."""
    pytest.importorskip("openvino")
    spec, case = _case(spec_id, np.array(-0.75, dtype))
    outcome = backends.get("openvino").execute(spec, case)
    assert outcome.status == "ok", outcome.message
    verdict, detail, _ = judge(spec, case, outcome)
    assert verdict is Verdict.PASS, detail
    assert outcome.outputs[0].dtype == np.dtype(dtype) and outcome.outputs[0].shape == ()


class _RuntimeObject:
    """Stands in for a runtime's object whose destructor is the runtime's code: it notes the phase
    the process is in when it is torn down."""

    def __init__(self, torn_down_in: list):
        self.torn_down_in = torn_down_in

    def __del__(self):
        from opconform.backends import base

        self.torn_down_in.append(base._phase[0])


@pytest.mark.parametrize("stage", ["load", "infer"])
def test_runtime_objects_a_failed_call_holds_are_torn_down_in_the_backends_phase(monkeypatch, stage):
    """A backend's exception holds the frames it was raised from, and their locals the runtime's
    objects: their destructors run in the backend's phase (IREE's result buffers after "Could not
    map memory" died there with SIGSEGV, which at the end of the except block was charged to
    opconform), and the case is the backend's error."""
    backend = backends.get("reference")
    spec, case = _case("onnx::Abs-13", np.array([-1.5, 2.0], np.float32))
    torn_down_in: list = []

    def failing(*args, **kwargs):
        held = _RuntimeObject(torn_down_in)  # noqa: F841 - a local of the raising frame
        raise RuntimeError("Could not map memory")

    monkeypatch.setattr(type(backend), stage, failing)
    outcome = backend.execute(spec, case)
    assert outcome.status == "error" and "Could not map memory" in outcome.message
    assert torn_down_in == ["backend"]
