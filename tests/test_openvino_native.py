"""openvino-native builds every OpenVINO spec version from its opset's Python factory: a valid case
of each builds, compiles and runs (or OpenVINO says it does not implement it), never failing in
opconform's own code; shape-setting inputs go in as Constants and join the model's signature."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_library import loadable_specs
from opconform import oracle, specs
from opconform.generator import openvino_model, sampling

pytestmark = [pytest.mark.backend, pytest.mark.slow]
pytest.importorskip("openvino")

from opconform.backends import get  # noqa: E402
from opconform.backends.openvino_native import folded  # noqa: E402

VERSIONS = [v for s in loadable_specs("openvino") for v in s.versions if oracle.has_oracle(v)]


@pytest.fixture(scope="module")
def backend():
    return get("openvino-native")


# spec versions whose drawn case kills the process in OpenVINO itself: run in an isolated worker
KILLS_THE_PROCESS = {"openvino::LSTMSequence-5": "SIGFPE on an empty batch (CPU plugin)",
                     "openvino::CTCLoss-4": "SIGSEGV on an empty target, label_length 0 (CPU plugin)"}


@pytest.mark.parametrize("spec", VERSIONS, ids=lambda v: v.id)
def test_a_valid_case_builds_and_runs(backend, spec):
    cases = sampling.generate(spec, 1, 7, kind="valid", expect=oracle.expectation)
    assert cases
    if spec.id in KILLS_THE_PROCESS:
        from opconform.model import Verdict
        from opconform.suites.isolated import IsolatedBackend

        isolated = IsolatedBackend("openvino-native", timeout=120)
        try:
            for case in cases:  # an IsolationError would be opconform's own failure
                assert isolated.run(spec, case).verdict != Verdict.HARNESS_ERROR
        finally:
            isolated.close()
        return
    for case in cases:
        outcome = backend.execute(spec, case)  # a failure of opconform's own raises HarnessError
        assert outcome.status in ("ok", "error", "unsupported", "crash"), outcome
        if outcome.status == "unsupported":
            assert outcome.message, spec.id


def test_every_operation_has_a_factory():
    import importlib

    for v in VERSIONS:
        module = importlib.import_module(f"openvino.opset{max(v.since, 1)}")
        found = openvino_model.factory(module, v.operator) or any(
            openvino_model.factory(importlib.import_module(f"openvino.opset{n}"), v.operator) for n in range(v.since, 17))
        assert found or v.operator in openvino_model.ADAPTERS, v.id


def test_axes_are_folded_into_the_signature(backend):
    spec = specs.load("openvino::ReduceSum-1")
    x = np.ones((2, 3), np.float32)
    case_a = sampling.generate(spec, 1, 1, kind="valid", expect=oracle.expectation)[0]
    import dataclasses

    one = dataclasses.replace(case_a, inputs=(x, np.array([0], np.int64)), attributes={})
    other = dataclasses.replace(case_a, inputs=(x, np.array([1], np.int64)), attributes={})
    assert folded(spec, one).constant_inputs[1] and not folded(spec, one).constant_inputs[0]
    assert backend.signature(spec, one) != backend.signature(spec, other)


# OpenVINO's own names where they differ from the documents' (its type info): ReLU is Relu, the
# hyperbolic inverses of opset3 register under opset4, LogicalXor-1, ReorgYolo-1 and ROIPooling-1 under opset2
TYPE_NAMES = {"PReLU": "PRelu", "ReLU": "Relu", "SoftMax": "Softmax", "MulticlassNonMaxSuppression": "MulticlassNms"}
VERSION_IDS = {"openvino::Acosh-3": "opset4", "openvino::Asinh-3": "opset4", "openvino::Atanh-3": "opset4",
               "openvino::LogicalXor-1": "opset2", "openvino::ReorgYolo-1": "opset2", "openvino::ROIPooling-1": "opset2",
               "openvino::RNNCell-3": "opset1"}  # RNNCell-3 registers as opset1 (v0::RNNCell)


# nodes a model holds beside the node under test: a variable's ReadValue/Assign pair and the path
# that carries Assign's new_value from its ReadValue (generator/openvino_state_adapters.py)
COMPANIONS = {"openvino::ReadValue-3": {"Assign"},
              "openvino::Assign-3": {"ReadValue", "ShapeOf", "ReduceSum", "GreaterEqual", "Select"}}


@pytest.mark.parametrize("spec", VERSIONS, ids=lambda v: v.id)
def test_the_model_holds_the_version_the_spec_names(spec):
    case = sampling.generate(spec, 1, 5, kind="valid")[0]
    try:
        model = openvino_model.build(spec, case)
    except RuntimeError as e:
        assert "not supported by the Python factory" in str(e), e
        return
    besides = {"Parameter", "Result"} | ({"Constant"} if spec.operator != "Constant" else set()) | COMPANIONS.get(spec.id, set())
    ops = [op for op in model.get_ordered_ops() if op.get_type_name() not in besides]
    assert [(op.get_type_name(), op.get_type_info().version_id) for op in ops] == \
        [(TYPE_NAMES.get(spec.operator, spec.operator), VERSION_IDS.get(spec.id, f"opset{spec.since}"))]
