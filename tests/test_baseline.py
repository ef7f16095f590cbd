"""`opconform baseline`: readable YAML, one entry per backend and spec version, reasons kept."""
from __future__ import annotations

import yaml

from helpers_reports import every_verdict, results_dir
from opconform.cli import main
from opconform.reports import baseline


def test_baseline_lists_every_failure_with_a_reason_field(tmp_path):
    d = results_dir(tmp_path / "a", "alpha")
    out = tmp_path / "baseline.yaml"
    assert main(["baseline", str(d), "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# opconform baseline")
    doc = yaml.safe_load(text)
    specs = doc["backends"]["alpha"]["specs"]
    failing = {f["case"]: f for s in specs.values() for f in s.get("failing", ())}
    expected = {r.case_id: r.verdict.value for r in every_verdict() if r.verdict.is_failure}
    assert {k: f["verdict"] for k, f in failing.items()} == expected
    assert all(f["reason"] == "" for f in failing.values())
    assert specs["onnx::GatherND-13"]["status"] == "fail"
    assert specs["onnx::GatherND-13"]["cases"] == sum(r.spec_id == "onnx::GatherND-13" for r in every_verdict())


def test_regenerating_keeps_reasons(tmp_path):
    d = results_dir(tmp_path / "a", "alpha")
    out = tmp_path / "baseline.yaml"
    assert main(["baseline", str(d), "--out", str(out)]) == 0
    case = next(r.case_id for r in every_verdict() if r.verdict.is_failure)
    text = out.read_text()
    at = text.index(f"case: {case}\n")
    at = text.index("reason: ''", at)  # what a reviewer does: fill in the reason of that entry
    out.write_text(text[:at] + "reason: known upstream bug" + text[at + len("reason: ''"):])
    b = baseline.load(out)
    assert any(k.reason == "known upstream bug" for e in b.backends["alpha"].specs.values() for k in e.failing.values())
    assert main(["baseline", str(d), "--out", str(out)]) == 0
    again = baseline.load(out)
    reasons = {k.case: k.reason for e in again.backends["alpha"].specs.values() for k in e.failing.values()}
    assert reasons[case] == "known upstream bug"


def test_round_trip(tmp_path):
    from opconform.reports.resultset import ResultSet

    rs = ResultSet.load([results_dir(tmp_path / "a", "alpha")])
    b = baseline.from_results(rs)
    baseline.write(b, tmp_path / "b.yaml")
    assert baseline.load(tmp_path / "b.yaml") == b
