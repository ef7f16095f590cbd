"""A spec version none of whose valid cases ran is "not run", with the reason, never 100% pass.

tract does not implement onnx::Unique: every valid case is unsupported, and every must-refuse case
is refused (it refuses everything), which used to pass on its own and show 100%."""
import json
from collections import Counter

import numpy as np
import pytest

from helpers_runner import rows, run_cli
from opconform.model import Result
from opconform.reports.tally import Tally

SPECS = "onnx::Unique-11,onnx::Abs-13"


@pytest.fixture(scope="module")
def tract_run(tmp_path_factory):
    pytest.importorskip("tract")
    out = tmp_path_factory.mktemp("tract") / "out"
    proc = run_cli("--backend", "tract", "--spec", SPECS, "--profile", "smoke", "--jobs", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc, out


def _results(out, spec_id):
    return [Result.from_json(r) for r in rows(out) if r["spec_id"] == spec_id]


@pytest.mark.backend
def test_tract_unique_is_not_run_with_the_reason(tract_run):
    _, out = tract_run
    unique = _results(out, "onnx::Unique-11")
    valid = Counter(r.verdict.value for r in unique if r.extra["expected_kind"] == "outputs")
    refused = Counter(r.verdict.value for r in unique if r.extra["expected_kind"] != "outputs")
    assert set(valid) == {"unsupported"} and refused["pass"] > 0  # what made it 100% pass
    t = Tally.of(unique)
    assert t.status == "not-run" and t.pass_rate is None and t.passed == 0 and t.ran == 0
    assert "Unimplemented(Unique)" in t.reason
    assert t.count("pass") == refused["pass"]  # the verdicts themselves stay as judged


@pytest.mark.backend
def test_a_spec_version_that_ran_keeps_its_rate(tract_run):
    _, out = tract_run
    t = Tally.of(_results(out, "onnx::Abs-13"))
    assert t.status in ("pass", "fail") and t.pass_rate is not None and t.ran > 0
    both = Tally.of([Result.from_json(r) for r in rows(out)])
    assert both.passed == t.passed and both.ran == t.ran  # Unique's refusals count in no total either


@pytest.mark.backend
def test_not_run_in_summary_lines_run_json_and_report(tract_run):
    proc, out = tract_run
    assert "not run: onnx::Unique-11: no valid case ran (TractError" in proc.stderr
    assert "1 spec versions not run" in proc.stderr
    assert "Unimplemented(Unique)" in json.loads((out / "run.json").read_text())["not_run"]["onnx::Unique-11"]
    summary = json.loads((out / "report" / "summary.json").read_text())
    entry = summary["backends"]["tract"]["specs"]["onnx::Unique-11"]
    assert entry["status"] == "not-run" and entry["pass_rate"] is None and "Unimplemented(Unique)" in entry["not_run_reason"]
    assert summary["backends"]["tract"]["specs_by_status"]["not-run"] == 1
    index = (out / "report" / "index.html").read_text()
    row = index[index.index('data-spec="onnx::Unique-11"'):]
    row = row[: row.index("</tr>")]
    assert ">not run<" in row and "100.0%" not in row


def test_not_run_is_decided_over_every_shard(tmp_path):
    """A spec version whose valid cases are all unsupported in one shard, but run in another, ran."""
    from helpers_reports import GATHER, _case, _result
    from opconform.model import Verdict
    from opconform.suites.merge import ResultsDir, merged_run

    f = np.arange(6, dtype=np.float32).reshape(2, 3)
    i = np.array([[0, 1]], dtype=np.int64)
    refused = _result("alpha", _case(GATHER, f, np.array([[5, 0]], np.int64), kind="error", relation="indices_in_bounds"),
                      Verdict.PASS, message="index out of range")
    one = [_result("alpha", _case(GATHER, f, i), Verdict.UNSUPPORTED, message="no float32 GatherND"), refused]
    other = [_result("alpha", _case(GATHER, f + 1, i), Verdict.PASS)]
    run = {"backend": "alpha", "seed": 0, "profile": "ci", "spec_pattern": None, "not_run": {GATHER: "from shard 1"}}
    alone, both = Tally.of(one), Tally.of(one + other)
    assert alone.status == "not-run" and alone.passed == 0 and "no float32 GatherND (1 case)" == alone.reason
    assert both.status == "pass" and both.passed == both.ran == 2  # the refusal counts once a valid case ran
    shard = [ResultsDir(tmp_path / "a", {**run, "shard": "1/2"}, one), ResultsDir(tmp_path / "b", {**run, "shard": "2/2"}, other)]
    assert merged_run(shard)["not_run"] == {}
    assert merged_run(shard[:1])["not_run"] == {GATHER: "no float32 GatherND (1 case)"}
