"""`opconform validate` through opconform.cli.main: a readable summary, exit 0 when every example
is reproduced, 1 when one is not, 2 (one line) when a spec file is malformed."""
from __future__ import annotations

import shutil
from pathlib import Path

from opconform import specs
from opconform.cli import main


def _library_copy(tmp_path: Path, dialect: str, operator: str) -> Path:
    target = tmp_path / dialect / f"{operator}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(specs.SPEC_ROOT / dialect / f"{operator}.yaml", target)
    return target


def test_validate_real_specs_passes(capsys):
    assert main(["validate", "--spec", "onnx::GatherND*,openvino::Unique*"]) == 0
    out = capsys.readouterr().out
    for row in ("onnx::GatherND-11", "onnx::GatherND-13", "openvino::Unique-10"):
        assert row in out
    assert "9/9" in out and "nan_equality" in out
    assert "4 spec versions" in out


def test_validate_fails_on_an_example_the_oracle_does_not_reproduce(tmp_path, capsys):
    path = _library_copy(tmp_path, "onnx", "GatherND")
    text = path.read_text()
    wrong = text.replace("- {dtype: int32, data: [0, 3]}", "- {dtype: int32, data: [0, 4]}", 1)
    assert wrong != text
    path.write_text(wrong)
    assert main(["validate", "--spec-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("FAIL onnx::GatherND-11 example example_1: output output: "))
    assert "got 3, expected 4" in line, line  # the oracle still gives 3 where the edited example says 4


def test_validate_refuses_a_malformed_spec_in_one_line(tmp_path, capsys):
    _library_copy(tmp_path, "onnx", "Unique")
    bad = _library_copy(tmp_path, "openvino", "GatherND")
    bad.write_text(bad.read_text().replace("on_violation: undefined", "on_violation: sometimes", 1))
    assert main(["validate", "--spec-dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(bad) in lines[0] and "on_violation" in lines[0]
    assert "onnx::Unique-28" in captured.out  # the good file is still reported


def test_validate_unknown_pattern_is_one_line(capsys):
    assert main(["validate", "--spec", "onnx::NoSuchOperator"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_validate_names_the_one_glob_that_matches_nothing(capsys):
    assert main(["validate", "--spec", "onnx::GatherND*,onnx::GatherNDD*"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'onnx::GatherNDD*' matches no spec version" in err


def test_validate_spec_dir_that_does_not_exist_is_one_line(tmp_path, capsys):
    assert main(["validate", "--spec-dir", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--spec-dir {tmp_path / 'nope'}: no such directory" in err
