"""`opconform gate`: 0 when nothing regressed, 1 on a regression (or a stale entry with --strict),
2 on bad input with one clear line."""
from __future__ import annotations

import json

import pytest

from helpers_reports import every_verdict, run_json, write_dir
from opconform.cli import main
from opconform.model import Verdict


@pytest.fixture
def base(tmp_path):
    d = write_dir(tmp_path / "base_run", every_verdict(), run_json("alpha"))
    out = tmp_path / "baseline.yaml"
    assert main(["baseline", str(d), "--out", str(out)]) == 0
    return out


def _run(tmp_path, results, name="now"):
    return str(write_dir(tmp_path / name, results, run_json("alpha")))


def gate(*args):
    return main(["gate", *map(str, args)])


def test_same_results_pass(tmp_path, base):
    assert gate("--baseline", base, _run(tmp_path, every_verdict())) == 0
    assert gate("--strict", "--baseline", base, _run(tmp_path, every_verdict())) == 0


def test_passing_case_now_failing_is_a_regression(tmp_path, base, capsys):
    rs = every_verdict()
    ov_pass = next(r for r in rs if r.spec_id.startswith("openvino") and r.verdict is Verdict.PASS)
    ov_pass.verdict = Verdict.MISMATCH
    assert gate("--baseline", base, _run(tmp_path, rs)) == 1
    out = capsys.readouterr().out
    assert f"REGRESSION alpha openvino::GatherND-8 case {ov_pass.case_id}: mismatch" in out


def test_spec_that_passes_now_failing(tmp_path, capsys):
    only_pass = [r for r in every_verdict() if r.spec_id.startswith("onnx") and r.verdict is Verdict.PASS]
    d = write_dir(tmp_path / "base_run", only_pass, run_json("alpha"))
    assert main(["baseline", str(d), "--out", str(tmp_path / "b.yaml")]) == 0
    assert "status: pass" in (tmp_path / "b.yaml").read_text()
    only_pass[0].verdict = Verdict.CRASH
    assert gate("--baseline", tmp_path / "b.yaml", _run(tmp_path, only_pass)) == 1
    assert "baseline: spec passes" in capsys.readouterr().out


def test_new_failing_case_is_a_regression(tmp_path, base, capsys):
    rs = every_verdict()
    new = every_verdict()[0]
    new.case_id, new.verdict = "feedfacefeedface", Verdict.TIMEOUT
    assert gate("--baseline", base, _run(tmp_path, rs + [new])) == 1
    assert "feedfacefeedface" in capsys.readouterr().out


def test_known_failure_now_passing_is_stale_only_with_strict(tmp_path, base, capsys):
    rs = every_verdict()
    fixed = next(r for r in rs if r.verdict is Verdict.WRONG_SHAPE)
    fixed.verdict = Verdict.PASS
    d = _run(tmp_path, rs)
    assert gate("--baseline", base, d) == 0
    assert gate("--strict", "--baseline", base, d) == 1
    assert f"STALE      alpha onnx::GatherND-13 case {fixed.case_id}" in capsys.readouterr().out


def test_changed_verdict_of_known_failure_is_reported_not_failed(tmp_path, base, capsys):
    rs = every_verdict()
    m = next(r for r in rs if r.verdict is Verdict.WRONG_DTYPE)
    m.verdict = Verdict.MISMATCH
    assert gate("--baseline", base, _run(tmp_path, rs)) == 0
    assert "CHANGED" in capsys.readouterr().out


def test_missing_results_dir_is_bad_input(tmp_path, base, capsys):
    assert gate("--baseline", base, tmp_path / "absent") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "absent" in err


def test_corrupt_line_is_bad_input_with_line_number(tmp_path, base, capsys):
    d = _run(tmp_path, every_verdict())
    lines = open(f"{d}/results.jsonl").read().splitlines()
    lines[3] = lines[3][:40]
    open(f"{d}/results.jsonl", "w").write("\n".join(lines) + "\n")
    assert gate("--baseline", base, d) == 2
    err = capsys.readouterr().err
    assert "results.jsonl:4: corrupt line" in err and err.count("\n") == 1


@pytest.mark.parametrize("text, needle", [
    ("format: 1\nbackends: [unclosed\n", "malformed YAML at line"),
    ("format: 1\nbackends:\n  alpha:\n    specs:\n      x::Y-1: {status: maybe}\n", "status: expected one of"),
    ("format: 1\nbackends:\n  alpha:\n    specs:\n      x::Y-1:\n        status: fail\n        failing: [{case: a, verdict: wrong}]\n",
     "failing[0].verdict"),
    ("format: 7\n", "format: expected 1"),
    ("format: 1\nbackends:\n  alpha:\n    specs:\n      x::Y-1:\n        status: fail\n        failing: [{case: 1234, verdict: crash}]\n",
     "expected a case id string (quote it), got 1234"),
])
def test_malformed_baseline_is_bad_input(tmp_path, capsys, text, needle):
    (tmp_path / "b.yaml").write_text(text)
    assert gate("--baseline", tmp_path / "b.yaml", _run(tmp_path, every_verdict())) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_missing_baseline_is_bad_input(tmp_path, capsys):
    assert gate("--baseline", tmp_path / "none.yaml", _run(tmp_path, every_verdict())) == 2
    assert "none.yaml" in capsys.readouterr().err


def test_run_json_that_is_not_json_is_bad_input(tmp_path, base, capsys):
    d = _run(tmp_path, every_verdict())
    open(f"{d}/run.json", "w").write("{")
    assert gate("--baseline", base, d) == 2
    assert "run.json: not valid JSON" in capsys.readouterr().err


def test_spec_no_longer_run_is_reported(tmp_path, base, capsys):
    rs = [r for r in every_verdict() if r.spec_id.startswith("onnx")]
    assert gate("--baseline", base, _run(tmp_path, rs)) == 0
    assert "NOT-RUN    alpha openvino::GatherND-8" in capsys.readouterr().out


def test_gate_accepts_merged_results(tmp_path, base):
    rs = every_verdict()
    a = write_dir(tmp_path / "s1", rs[::2], {**run_json("alpha"), "shard": "1/2"})
    b = write_dir(tmp_path / "s2", rs[1::2], {**run_json("alpha"), "shard": "2/2"})
    assert main(["merge", str(a), str(b), "--out", str(tmp_path / "m")]) == 0
    assert gate("--strict", "--baseline", base, tmp_path / "m") == 0
    assert json.loads((tmp_path / "m" / "run.json").read_text())["shards"] == ["1/2", "2/2"]


def test_torn_last_line_is_a_warning(tmp_path, base, capsys):
    d = _run(tmp_path, every_verdict())
    with open(f"{d}/results.jsonl", "a") as f:
        f.write('{"case_id": "x"')
    assert gate("--baseline", base, d) == 0
    assert "cut short by a killed run" in capsys.readouterr().out
