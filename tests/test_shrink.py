"""Shrinking failures (suites.shrink, `opconform run --shrink`, `opconform shrink`) against the
deliberately broken backend: each failure group gets a minimal case no bigger than any of its run
cases, which replays with the same verdict; a crashing backend does not kill the shrinker; a group
with no failing example says so; the report shows the minimal case first."""
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from helpers_runner import BROKEN, rows, run_cli, write_plan
from opconform import oracle, specs
from opconform.model import Case
from opconform.reports import html, resultset
from opconform.suites import case_shrink, merge, shrink

SPEC = "onnx::Abs-13"


def _shrunk(out) -> list[dict]:
    return [json.loads(line) for line in (out / shrink.SHRUNK_FILE).read_text().splitlines()]


@pytest.fixture(scope="module")
def shrunk_run(tmp_path_factory):
    """A real run whose every case fails (valid ones wrong-shape, invalid ones accepted), shrunk by --shrink."""
    tmp = tmp_path_factory.mktemp("shrink")
    env = write_plan(tmp / "plan.json", {"*": "wrong-shape"})
    out = tmp / "out"
    proc = run_cli("--backend", BROKEN, "--spec", SPEC, "--jobs", "1", "--out", str(out), "--shrink",
                   "--shrink-budget", "10", env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out, env, tmp


def test_every_group_shrinks_to_a_case_no_bigger_than_its_run_cases(shrunk_run):
    out, *_ = shrunk_run
    summary = json.loads((out / shrink.SUMMARY_FILE).read_text())
    run_groups = shrink.groups(merge.read_dir(out).results)
    assert {g.verdict for g in run_groups} == {"wrong-shape", "accepted-invalid"}
    assert [g["status"] for g in summary["groups"]] == ["shrunk"] * len(run_groups)
    lines = {r["extra"]["shrunk_from"]: r for r in _shrunk(out)}
    for g in run_groups:
        line = lines[g.representative.case_id]
        assert line["verdict"] == g.verdict and line["spec_id"] == g.spec_id and line["backend"] == g.backend
        assert line["extra"]["shrunk"] is True and line["extra"]["relation"] == g.relation
        assert line["extra"]["symptom"] == g.symptom  # the same symptom, not only the same verdict
        size = shrink.case_size(Case.from_json(line["case"]))
        assert all(size <= shrink.case_size(Case.from_json(r.case)) for r in g.failing)


def _python(code: str, *args: str, env: dict) -> str:
    """Run code in a fresh interpreter with the broken backend's plan in its environment: in this
    process the workers come from a fork server that another test may have started before the plan
    was set, and they would not see it (they answered 'timeout' for a plan that says wrong-shape)."""
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True,
                          env={**_base_env(), **env}).stdout


def test_shrunk_case_replays_with_the_same_verdict(shrunk_run):
    out, env, _ = shrunk_run
    code = ("import json, sys; from opconform.model import Case; from opconform.suites import replay\n"
            "for line in open(sys.argv[1]):\n"
            "    r = json.loads(line)\n"
            "    fresh = replay.rerun(r['spec_id'], Case.from_json(r['case']), sys.argv[2], timeout=30)\n"
            "    print(json.dumps([r['verdict'], r['case_id'], fresh['verdict'], fresh['case_id']]))")
    replays = [json.loads(line) for line in _python(code, str(out / shrink.SHRUNK_FILE), BROKEN, env=env).splitlines()]
    assert len(replays) == len(_shrunk(out)) > 0
    for verdict, case_id, fresh_verdict, fresh_id in replays:
        assert (fresh_verdict, fresh_id) == (verdict, case_id)


def test_shrunk_cases_are_evidence_not_verdicts(shrunk_run):
    out, *_ = shrunk_run
    d = merge.read_dir(out)
    assert len(d.results) == len(rows(out)) and d.shrunk
    assert all(r.extra["shrunk"] for r in d.shrunk) and not any(r.extra.get("shrunk") for r in d.results)
    rs = resultset.ResultSet.of([d])
    assert sum(t.total for t in rs.tallies().values()) == len(rows(out))


def test_report_shows_the_minimal_case_first_in_each_group(shrunk_run):
    out, *_ = shrunk_run
    page = "".join(text for _, text in html.render_details(resultset.ResultSet.load([out])))
    drills = re.findall(r'<details class="failure"[^>]*data-verdicts="([^"]+)" data-case="([0-9a-f]+)"( data-shrunk="true")?', page)
    first_of_verdict = {}
    for verdict, case_id, shrunk_mark in drills:
        first_of_verdict.setdefault(verdict, (case_id, bool(shrunk_mark)))
    shrunk_ids = {r["case_id"] for r in _shrunk(out)}
    assert {v: s for v, (_, s) in first_of_verdict.items()} == {"wrong-shape": True, "accepted-invalid": True}
    assert {c for c, _ in first_of_verdict.values()} <= shrunk_ids
    assert page.count("minimal (shrunk by Hypothesis)") >= len(shrunk_ids)


def test_a_failure_that_does_not_come_again_is_said_not_invented(shrunk_run):
    out, _, tmp = shrunk_run
    copy = tmp / "passing"
    shutil.copytree(out, copy)
    (copy / shrink.SHRUNK_FILE).unlink()
    env = write_plan(tmp / "refuse.json", {"*": "refuse"})  # valid: error (not wrong-shape); invalid: pass
    code = ("import sys; from opconform.suites import shrink; "
            "shrink.shrink(sys.argv[1], sys.argv[2], budget=8, max_examples=15)")
    subprocess.run([sys.executable, "-c", code, str(copy), BROKEN], check=True, env={**env, **_base_env()})
    summary = json.loads((copy / shrink.SUMMARY_FILE).read_text())
    # neither a drawn case nor the group's own, run again (several times), fails alike
    assert summary["groups"] and {g["status"] for g in summary["groups"]} == {"not-reproducible"}
    assert all(g["examples"] > 0 and g["case_id"] is None for g in summary["groups"])
    assert all(f"each run {shrink.RERUNS} times" in g["detail"] for g in summary["groups"])
    assert (copy / shrink.SHRUNK_FILE).read_text() == ""


def test_a_group_no_search_reproduces_keeps_its_own_case_as_example(shrunk_run):
    out, _, tmp = shrunk_run
    copy = tmp / "own"
    shutil.copytree(out, copy)
    (copy / shrink.SHRUNK_FILE).unlink()
    valid = shrink.groups(merge.read_dir(copy).results)
    own = {g.representative.case_id for g in valid if g.verdict == "wrong-shape"}
    # only the run's own cases still fail: every case the search draws passes
    env = write_plan(tmp / "own.json", {**{cid: "wrong-shape" for cid in own}, "*": "pass"})
    code = ("import sys; from opconform.suites import shrink; "
            "shrink.shrink(sys.argv[1], sys.argv[2], budget=8, max_examples=15)")
    subprocess.run([sys.executable, "-c", code, str(copy), BROKEN], check=True, env={**env, **_base_env()})
    summary = json.loads((copy / shrink.SUMMARY_FILE).read_text())
    kept = [g for g in summary["groups"] if g["verdict"] == "wrong-shape"]
    # no reduction of the own case fails alike (each is a new case, and those pass): the own case is
    # minimal as it is, and it is the group's shrunk example
    assert kept and all(g["status"] == "shrunk" and g["case_id"] == g["shrunk_from"] for g in kept), kept
    assert all("minimal as it is" in g["detail"] and g["examples"] > 0 for g in kept)
    assert {r["case_id"] for r in _shrunk(copy) if r["verdict"] == "wrong-shape"} == {g["case_id"] for g in kept}


def test_a_failing_case_is_reduced_to_one_no_single_reduction_of_which_fails():
    spec = specs.load("onnx::Abs-13")
    x = np.array([[1, 7, 3], [4, 5, 6]], np.float32)
    case = Case(spec.id, {}, (x,), (True,), oracle.expectation(spec, (x,), {}))
    runs = []

    def fails(c):  # a backend that gets any input holding a 7 wrong
        runs.append(c)
        return bool((c.inputs[0] == 7).any())

    small, tried, exhausted = case_shrink.reduce_case(spec, case, fails, kind="valid", relation=None, budget=60)
    np.testing.assert_array_equal(small.inputs[0], np.array([[0, 7]], np.float32))
    assert exhausted and tried == len(runs)
    # the reduced case's expectation is the oracle's for its own inputs
    np.testing.assert_array_equal(small.expected.alternatives[0].outputs[0], np.array([[0, 7]], np.float32))
    # a budget spent before every reduction is tried says so
    assert case_shrink.reduce_case(spec, case, fails, kind="valid", relation=None, budget=0)[2] is False


def test_same_seed_same_minimal_cases(shrunk_run, tmp_path):
    out, env, _ = shrunk_run
    again = tmp_path / "again"
    shutil.copytree(out, again)
    (again / shrink.SHRUNK_FILE).unlink()
    _python("import sys; from opconform.suites import shrink; shrink.shrink(sys.argv[1], sys.argv[2], budget=10)",
            str(again), BROKEN, env=env)
    assert [r["case_id"] for r in _shrunk(again)] == [r["case_id"] for r in _shrunk(out)]


def test_budget_running_out_keeps_the_failure_found():
    """The first case fails and uses up the whole budget: the search stops with that case, not with
    a flaky-test error (Hypothesis re-runs it at the end)."""
    import time

    from opconform import specs
    from opconform.model import Verdict

    group = shrink.Group("broken", SPEC, "wrong-shape", None, "valid")
    calls = []

    def execute(case):
        calls.append(case.id)
        time.sleep(0.3)
        return Verdict.WRONG_SHAPE, None

    found = shrink.search(specs.load(SPEC), group, execute, seed=0, budget=0.2, max_examples=50)
    assert found is not None and calls == [found.id]


def test_merge_keeps_the_shrunk_cases(shrunk_run, tmp_path):
    out, *_ = shrunk_run
    merged = merge.merge([out], tmp_path / "merged")
    assert [r.case_id for r in merged.shrunk] == [r["case_id"] for r in _shrunk(out)]
    assert merge.read_dir(tmp_path / "merged").shrunk == merged.shrunk


@pytest.mark.slow  # every crash costs a fresh worker (about 10 s in all)
def test_crashing_backend_does_not_kill_the_shrinker(tmp_path):
    env = write_plan(tmp_path / "plan.json", {"*": "segv"})
    out = tmp_path / "out"
    proc = run_cli("--backend", BROKEN, "--spec", SPEC, "--jobs", "1", "--timeout", "10", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cli = subprocess.run([sys.executable, "-m", "opconform", "shrink", str(out), "--budget", "4", "--max-examples", "5"],
                         capture_output=True, text=True, env={**_base_env(), **env}, timeout=300)
    assert cli.returncode == 0, cli.stderr[-2000:]
    summary = json.loads((out / shrink.SUMMARY_FILE).read_text())
    assert {g["verdict"] for g in summary["groups"]} == {"crash"}
    assert {g["status"] for g in summary["groups"]} == {"shrunk"}, summary
    lines = _shrunk(out)
    assert len(lines) == len(summary["groups"])
    assert all(line["verdict"] == "crash" and "SIGSEGV" in line["detail"] for line in lines)
    assert re.search(r"shrink broken onnx::Abs-13 crash \(crash \| [^)]*\): shrunk", cli.stderr), cli.stderr[-2000:]


def test_shrink_of_missing_dir_is_one_line_exit_2(tmp_path):
    cli = subprocess.run([sys.executable, "-m", "opconform", "shrink", str(tmp_path / "nope"), "--backend", BROKEN],
                         capture_output=True, text=True, env=_base_env())
    assert cli.returncode == 2 and cli.stderr.count("\n") == 1 and "nope" in cli.stderr


def _base_env() -> dict:
    import os

    return dict(os.environ)
