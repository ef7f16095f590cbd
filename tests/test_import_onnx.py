"""`opconform specs import-onnx`: skeletons from onnx.defs validate, and drift is reported, not overwritten."""
from __future__ import annotations

import onnx.defs
import pytest
import yaml

from opconform import cli
from opconform.specs import load_file, onnx_import


def _since_all(op):
    return sorted(s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == "")


def test_versions_in_force_from_opset_13():
    # LeakyRelu has versions 1, 6, 16: at opset 13 the one in force is 6, and 16 came later.
    assert _since_all("LeakyRelu")[-2:] == [6, 16]
    assert onnx_import.versions_in_force("LeakyRelu", 13) == [6, 16]
    # An extra (older) opset adds the version in force there.
    assert onnx_import.versions_in_force("LeakyRelu", 13, extra_opsets=[1]) == [1, 6, 16]


@pytest.mark.parametrize("op", ["Abs", "LeakyRelu", "Max", "Clip", "Mod", "BitShift", "Loop", "Cast", "Gelu"])
def test_skeleton_validates_with_the_loader(tmp_path, op):
    path, drift = onnx_import.import_operator(op, tmp_path)
    assert drift is None
    spec = load_file(path)
    assert [v.since for v in spec.versions] == onnx_import.versions_in_force(op, 13)
    latest = onnx.defs.get_schema(op)
    v = spec.versions[-1]
    assert v.since == latest.since_version
    assert v.source.section == f"{op}-{latest.since_version}"
    assert set(a.name for a in v.attributes) <= set(latest.attributes)
    # A fresh skeleton agrees with onnx.defs.
    assert onnx_import.drift(path) == []


def test_skeleton_declares_types_attributes_and_arity(tmp_path):
    path, _ = onnx_import.import_operator("LeakyRelu", tmp_path)
    v = load_file(path).version(16)
    assert set(v.inputs[0].types) == {"bfloat16", "float16", "float32", "float64"}
    alpha = next(a for a in v.attributes if a.name == "alpha")
    assert (alpha.type, alpha.default, alpha.required) == ("float", 0.01, False)
    path, _ = onnx_import.import_operator("Max", tmp_path)
    data = load_file(path).versions[-1].inputs[0]
    assert data.variadic and data.min_arity == 1
    path, _ = onnx_import.import_operator("Mod", tmp_path)
    fmod = next(a for a in load_file(path).versions[-1].attributes if a.name == "fmod")
    assert (fmod.type, fmod.default) == ("int", 0)  # an int default is kept
    path, _ = onnx_import.import_operator("Clip", tmp_path)
    assert [p.optional for p in load_file(path).versions[-1].inputs] == [False, True, True]


def test_required_attribute_and_family_guess(tmp_path):
    path, _ = onnx_import.import_operator("Cast", tmp_path)
    to = next(a for a in load_file(path).versions[-1].attributes if a.name == "to")
    assert to.required and to.default is None
    assert load_file(path).versions[-1].family is None  # not in the built-in table: left for a person
    path, _ = onnx_import.import_operator("Add", tmp_path)
    assert load_file(path).versions[-1].family == "elementwise_binary"


def test_drift_reported_and_file_left_alone(tmp_path, capsys):
    path, _ = onnx_import.import_operator("LeakyRelu", tmp_path)
    doc = yaml.safe_load(path.read_text())
    doc["versions"] = [v for v in doc["versions"] if v["since"] != 6]  # a missing version
    v16 = doc["versions"][0]
    v16["type_vars"]["T"].remove("bfloat16")
    v16["attributes"]["alpha"]["default"] = 0.2
    v16["relations"] = [{"id": "curated", "check": "rank(X) >= 0", "on_violation": "error"}]
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    before = path.read_text()
    found = [str(d) for d in onnx_import.drift(path)]
    assert "LeakyRelu-6: version missing from the file (in force at a required opset)" in found
    assert any("LeakyRelu-16: input X: element types differ (missing: ['bfloat16'])" == d for d in found)
    assert any(d.startswith("LeakyRelu-16: attribute alpha: default 0.2") for d in found)
    assert cli.main(["specs", "import-onnx", "LeakyRelu", "--out-dir", str(tmp_path), "--no-official"]) == 1
    assert path.read_text() == before  # curated content is never overwritten
    assert "difference(s) from onnx.defs" in capsys.readouterr().out


def test_command_writes_then_agrees(tmp_path, capsys):
    args = ["specs", "import-onnx", "Abs", "Neg", "--out-dir", str(tmp_path), "--no-official"]
    assert cli.main(args) == 0
    assert (tmp_path / "Abs.yaml").exists() and (tmp_path / "Neg.yaml").exists()
    assert cli.main(args) == 0
    assert capsys.readouterr().out.count("agrees with onnx.defs") == 2


def test_unknown_operator_is_one_clear_line(tmp_path, capsys):
    assert cli.main(["specs", "import-onnx", "NoSuchOp", "--out-dir", str(tmp_path), "--no-official"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "NoSuchOp" in err[0] and "onnx.defs" in err[0]
