"""`opconform generate` files are drop-ins: ONNX backend-test directories, OpenVINO IR, manifest."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from opconform import oracle, specs
from opconform.cli import main as cli
from opconform.generator import manifest, onnx_model
from opconform.generator.export import export
from opconform.generator.writers.tensorfiles import read_npy
from opconform.model import Case
from tests.helpers_generator import SPEC_IDS, load_or_fail

COUNT, SEED = 8, 123


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict]:
    versions = [load_or_fail(s) for s in SPEC_IDS]
    out = tmp_path_factory.mktemp("generated")
    return out, export(versions, COUNT, SEED, out, expect=oracle.expectation)


def _entries(doc, dialect):
    return [e for e in doc["cases"] if e["spec_id"].startswith(dialect + "::")]


def _pb(path: Path) -> onnx.TensorProto:
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    return t


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.shape != want.shape:
        return False
    if want.dtype == object:
        return [str(x) for x in got.reshape(-1)] == [str(x) for x in want.reshape(-1)]
    if want.dtype.kind in "fc" or want.dtype.itemsize <= 2 and want.dtype.kind not in "biu":
        g, w = got.astype(np.complex128), want.astype(np.complex128)
        return bool(np.all((g == w) | (np.isnan(g) & np.isnan(w))))
    return bool(np.array_equal(got, want))


def test_manifest_lists_every_case_with_its_fields(written):
    pytest.importorskip("openvino")  # without it the OpenVINO spec versions have no IR to write
    out, doc = written
    assert doc == manifest.read(out)
    assert {e["spec_id"] for e in doc["cases"]} == set(SPEC_IDS)
    assert doc["generator"]["seed"] == SEED
    assert doc["not_generated"] == {}  # every spec version written (a failure would be named here)
    for e in doc["cases"]:
        for key in ("id", "spec_id", "attributes", "attributes_resolved", "outputs_requested", "expected",
                    "policies", "seed", "label", "files", "case"):
            assert key in e, key
        assert e["seed"] == SEED and (out / e["dir"]).is_dir()
        kind = e["expected"]["kind"]
        assert kind in ("outputs", "error")
        if kind == "error":
            assert e["expected"]["relation"] and e["files"]["outputs"] == []
        else:
            assert len(e["files"]["outputs"]) == len(e["outputs_requested"])
            assert e["expected"]["alternatives"]


def test_a_case_id_replays_its_case(written):
    out, doc = written
    for e in doc["cases"]:
        case = manifest.case(doc, e["id"])
        assert case.id == e["id"] and case.seed == SEED
        assert oracle.expectation(specs.load(case.spec_id), case.inputs, case.attributes).kind == case.expected.kind


def test_onnx_checker_passes_on_every_model(written):
    out, doc = written
    entries = _entries(doc, "onnx")
    assert entries
    for e in entries:
        model = onnx.load(out / e["dir"] / "model.onnx")
        onnx.checker.check_model(model)
        spec = specs.load(e["spec_id"])
        assert model.opset_import[0].version == spec.since
        assert model.ir_version == onnx.helper.find_min_ir_version_for(list(model.opset_import))
        assert all(o.type.tensor_type.elem_type and o.type.tensor_type.HasField("shape") for o in model.graph.output)


def test_numpy_helper_reads_every_tensor_named_and_numbered_as_the_graph(written):
    out, doc = written
    for e in _entries(doc, "onnx"):
        d = out / e["dir"]
        model = onnx.load(d / "model.onnx")
        files = sorted(p.name for p in (d / "test_data_set_0").iterdir())
        ins = [f for f in files if f.startswith("input_")]
        outs = [f for f in files if f.startswith("output_")]
        assert ins == [f"input_{i}.pb" for i in range(len(model.graph.input))]
        case = Case.from_json(e["case"])
        given = dict(zip(onnx_model.input_names(specs.load(e["spec_id"]), case), case.inputs))
        for f, vi in zip(ins, model.graph.input):
            t = _pb(d / "test_data_set_0" / f)
            assert t.name == vi.name
            assert _same(numpy_helper.to_array(t), given[vi.name])
        if e["expected"]["kind"] == "outputs":
            assert outs == [f"output_{j}.pb" for j in range(len(model.graph.output))]
            assert [_pb(d / "test_data_set_0" / f).name for f in outs] == [o.name for o in model.graph.output]
            for f in outs:
                numpy_helper.to_array(_pb(d / "test_data_set_0" / f))
        else:
            assert outs == []


def _max_ort_opset(ort) -> int:
    """The newest default-domain opset this onnxruntime loads (probed with Identity)."""
    from onnx import TensorProto, helper

    for opset in range(onnx.defs.onnx_opset_version(), 12, -1):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
        m = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x],
                                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]),
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = helper.find_min_ir_version_for(list(m.opset_import))
        try:
            ort.InferenceSession(m.SerializeToString())
            return opset
        except Exception:  # noqa: BLE001 - this probe only asks "does it load"
            continue
    return 12


@pytest.mark.backend
def test_onnxruntime_runs_every_valid_case_it_implements_and_gets_the_stored_outputs(written):
    _run_onnxruntime(*written)


@pytest.mark.backend
@pytest.mark.slow
def test_onnxruntime_on_many_valid_cases(tmp_path):
    versions = [load_or_fail(s) for s in SPEC_IDS if s.startswith("onnx::")]
    _run_onnxruntime(tmp_path, export(versions, 60, 5, tmp_path, expect=oracle.expectation, kind="valid"))


def _known_onnxruntime_defect(spec, case: Case) -> bool:
    """onnxruntime's Unique folds NaN together with other values (X = [nan, nan, 0] gives Y = [nan],
    counts = [3]); no policy of the spec allows that. The files are right; the backend is not, and
    `opconform run` reports it as a mismatch."""
    x = case.inputs[0]
    return spec.operator == "Unique" and x.dtype.kind in "fc" and bool(np.isnan(x).any())


def _run_onnxruntime(out: Path, doc: dict) -> None:
    ort = pytest.importorskip("onnxruntime")
    newest = _max_ort_opset(ort)
    ran, not_implemented, mismatches, known = {}, {}, [], []
    for e in _entries(doc, "onnx"):
        if e["expected"]["kind"] != "outputs":
            continue
        d = out / e["dir"]
        model = onnx.load(d / "model.onnx")
        spec, case = specs.load(e["spec_id"]), Case.from_json(e["case"])
        if spec.since > newest:  # an opset this onnxruntime refuses: the same node at one it loads
            model = onnx_model.build(spec, case, opset=newest)
        try:
            session = ort.InferenceSession(model.SerializeToString())
        except Exception as exc:  # noqa: BLE001
            assert re.search(r"NOT_IMPLEMENTED|MLDataType|not supported|Type Error", str(exc)), str(exc)[:300]
            not_implemented[e["spec_id"]] = not_implemented.get(e["spec_id"], 0) + 1
            continue
        feeds = {}
        for f in e["files"]["inputs"]:
            t = _pb(d / "test_data_set_0" / f["file"])
            feeds[t.name] = numpy_helper.to_array(t)
        try:
            got = session.run(None, feeds)
        except RuntimeError as exc:  # onnxruntime's Python API takes no bfloat16 (ml_dtypes) arrays
            assert "MLDataType" in str(exc), str(exc)[:300]
            not_implemented[e["spec_id"]] = not_implemented.get(e["spec_id"], 0) + 1
            continue
        stored = [numpy_helper.to_array(_pb(d / "test_data_set_0" / f["file"])) for f in e["files"]["outputs"]]
        alternatives = [stored] + [[a.outputs[j] for j, on in enumerate(case.outputs_requested) if on]
                                   for a in case.expected.alternatives[1:]]
        if not any(all(_same(g, w) for g, w in zip(got, alt)) for alt in alternatives):
            if _known_onnxruntime_defect(spec, case):
                known.append(e["id"])
            else:
                mismatches.append((e["id"], e["spec_id"], e["label"]))
        ran[e["spec_id"]] = ran.get(e["spec_id"], 0) + 1
    print(f"\nonnxruntime ran {ran}; not implemented {not_implemented}; newest opset {newest}; "
          f"known onnxruntime defect (Unique with NaN) in {len(known)}")
    assert not mismatches, mismatches
    assert set(ran) == {s for s in SPEC_IDS if s.startswith("onnx::")}, ran


@pytest.mark.backend
def test_openvino_reads_every_ir_file(written):
    ov = pytest.importorskip("openvino")
    out, doc = written
    core = ov.Core()
    entries = _entries(doc, "openvino")
    read = 0
    for e in entries:
        d = out / e["dir"]
        files = e["files"]
        if files["model"] is None:  # OpenVINO refused to build the node: only invalid cases
            assert e["expected"]["kind"] == "error" and files["model_error"]
            continue
        model = core.read_model(str(d / files["model"]))
        read += 1
        assert [p.get_friendly_name() for p in model.get_parameters()] == [f["name"] for f in files["inputs"]]
        for f in files["inputs"] + files["outputs"]:
            x = read_npy(d / f["file"], f["element_type"])
            assert list(x.shape) == f["shape"]
        assert len(model.outputs) == len(e["outputs_requested"])
    assert read >= len([e for e in entries if e["expected"]["kind"] == "outputs"]) > 0


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_runs_with_one_seed_write_identical_files(tmp_path):
    versions = [load_or_fail(s) for s in ("onnx::Unique-11", "openvino::GatherND-8")]
    a, b = tmp_path / "a", tmp_path / "b"
    export(versions, 6, 9, a, expect=oracle.expectation)
    export(versions, 6, 9, b, expect=oracle.expectation)
    ta, tb = _tree(a), _tree(b)
    assert ta.keys() == tb.keys() and len(ta) > 12
    assert [k for k in ta if ta[k] != tb[k]] == []


def test_command_writes_files_and_refuses_bad_arguments(tmp_path, capsys):
    assert cli(["generate", "--spec", "onnx::GatherND-13", "--count", "3", "--seed", "1", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "manifest.json").read_text())
    assert len(doc["cases"]) == 3 and doc["generator"]["spec_pattern"] == "onnx::GatherND-13"
    assert cli(["generate", "--spec", "onnx::NoSuchOp", "--out", str(tmp_path / "x")]) == 2
    assert "no spec version matches" in capsys.readouterr().err
    assert cli(["generate", "--spec", "onnx::GatherND-13", "--count", "0", "--out", str(tmp_path / "y")]) == 2
