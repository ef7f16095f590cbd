"""OpenVINO compiles fewer models (issue 18): where its CPU plugin refuses the dynamic model, only
the integer inputs' shapes are fixed and one model serves every shape of the others, the tier
an operator needed is remembered, and compiled models are kept between runs (exported, under the
model's own bytes).
Verdicts must not change: the same cases run with the reuse off (OPCONFORM_OPENVINO_REUSE=0,
every input's shape fixed, no cache), on, and on again with the cache warm, case for case."""
import numpy as np
import pytest

from helpers_runner import planned_cases
from opconform import oracle, specs
from opconform.model import Case
from opconform.backends import openvino_common
from opconform.suites import verdicts

# Reshape (shape), TopK (K) and Expand (shape) are refused dynamic and take the integers tier;
# GatherND needs every shape fixed; Abs compiles dynamic
SPECS = ("onnx::Reshape-21", "onnx::TopK-11", "onnx::Expand-13", "onnx::GatherND-13", "onnx::Abs-13")


def run_with(reuse: bool, monkeypatch, cases: dict, model_cache) -> tuple[dict, int]:
    """Verdict per case id, and how many models the backend compiled (refused ones included)."""
    pytest.importorskip("openvino")
    from opconform.backends.openvino import OpenVinoOnnxBackend

    monkeypatch.setenv(openvino_common.REUSE_ENV, "1" if reuse else "0")
    monkeypatch.setenv(openvino_common.CACHE_ENV, str(model_cache))
    backend = OpenVinoOnnxBackend()
    compiles = []
    real_load = backend.load
    backend.load = lambda model: (compiles.append(1), real_load(model))[1]  # the real compile, counted
    got = {}
    for spec_id, spec_cases in cases.items():
        spec = specs.load(spec_id)
        for case in spec_cases:
            got[case.id] = verdicts.judge(spec, case, backend.execute(spec, case))[0]
    return got, len(compiles)


@pytest.fixture(scope="module")
def cases():
    return {s: planned_cases(s, "smoke") for s in SPECS}


@pytest.mark.backend
def test_verdicts_with_reuse_equal_verdicts_without(cases, monkeypatch, tmp_path):
    before, compiles_before = run_with(False, monkeypatch, cases, tmp_path / "unused")
    after, compiles_after = run_with(True, monkeypatch, cases, tmp_path / "models")
    assert sum(len(c) for c in cases.values()) == len(before) > 20
    assert after == before
    assert compiles_after < compiles_before, (compiles_after, compiles_before)
    assert not (tmp_path / "unused").exists()  # the reuse off keeps no compiled model
    blobs = list((tmp_path / "models").iterdir())
    assert blobs
    # a second run imports the compiled models OpenVINO kept: the same verdicts, no new model kept
    warm, _ = run_with(True, monkeypatch, cases, tmp_path / "models")
    assert warm == before
    assert sorted((tmp_path / "models").iterdir()) == sorted(blobs)


@pytest.mark.backend
def test_one_reshape_model_serves_every_data_shape(monkeypatch, tmp_path):
    """Reshape's data stays dynamic: cases of one signature and one length of `shape` compile once."""
    spec = specs.load("onnx::Reshape-21")
    pairs = [((2, 3), [3, 2]), ((3, 2), [2, 3]), ((1, 6), [6, 1]), ((6, 1), [1, 6]), ((2, 4), [4, 2])]
    group = []
    for data_shape, target in pairs:
        inputs = (np.arange(np.prod(data_shape), dtype=np.float32).reshape(data_shape), np.array(target, dtype=np.int64))
        group.append(Case(spec.id, {}, inputs, (True,), oracle.expectation(spec, inputs, {})))
    got, compiles = run_with(True, monkeypatch, {spec.id: group}, tmp_path)
    assert compiles == 2, compiles  # the refused dynamic model, then the one with `shape` fixed
    assert set(got.values()) == {verdicts.Verdict.PASS}, got
    _, compiles_before = run_with(False, monkeypatch, {spec.id: group}, tmp_path)
    assert compiles_before == 1 + len(pairs), compiles_before  # per whole input shape


def test_the_reuse_is_on_unless_turned_off(monkeypatch):
    monkeypatch.delenv(openvino_common.REUSE_ENV, raising=False)
    assert openvino_common.reuse_on()
    monkeypatch.setenv(openvino_common.REUSE_ENV, "0")
    assert not openvino_common.reuse_on()


@pytest.mark.backend
def test_kept_models_differ_by_their_constants(monkeypatch, tmp_path):
    """OpenVINO's own CACHE_DIR gave EyeLike k=1 the model of k=0 (its key leaves constants out):
    opconform's keeps each model under its own bytes, so the warm import answers as the compile did."""
    pytest.importorskip("openvino")
    from onnx import TensorProto, helper

    from opconform.backends.openvino import OpenVinoOnnxBackend

    monkeypatch.setenv(openvino_common.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv(openvino_common.REUSE_ENV, "1")

    def eye_like(k: int):
        x = helper.make_tensor_value_info("X", TensorProto.INT16, ["a", "b"])
        y = helper.make_tensor_value_info("Y", TensorProto.INT16, ["a", "b"])
        graph = helper.make_graph([helper.make_node("EyeLike", ["X"], ["Y"], k=k)], "g", [x], [y])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])

    x = np.zeros((4, 3), np.int16)
    cold = {k: OpenVinoOnnxBackend().load(eye_like(k))([x])[0] for k in (0, 1)}
    assert len(list(tmp_path.glob("*.blob"))) == 2
    warm = {k: OpenVinoOnnxBackend().load(eye_like(k))([x])[0] for k in (0, 1)}
    for k in (0, 1):
        np.testing.assert_array_equal(warm[k], np.eye(4, 3, k=k, dtype=np.int16))
        np.testing.assert_array_equal(cold[k], warm[k])
