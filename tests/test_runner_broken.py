"""The runner against a deliberately broken backend: every misbehaviour gets its verdict, the run
survives crashes, hangs and memory blow-ups, and every recorded case replays."""
import json
from collections import Counter

import pytest

from helpers_runner import BROKEN, planned_cases, rows, run_cli, write_plan
from opconform.backends.testing import broken
from opconform.model import Case, Verdict

SPECS = "onnx::GatherND-13,onnx::Abs-13"
# each costs a fresh worker (or a full timeout): one of each is enough ("harness": a broken adapter
# conversion, "harness-death": a death in adapter code; both opconform's failures, not the backend's)
ONCE = ["segv", "abort", "hang", "memory", "harness", "harness-death"]
OFTEN = ["pass", "wrong-shape", "wrong-dtype", "mismatch", "missing", "refuse", "unsupported"]


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("broken")
    cases = planned_cases(SPECS)
    valid = [c for c in cases if c.expected.kind == "outputs"]
    invalid = [c for c in cases if c.expected.kind != "outputs"]
    assert len(valid) >= len(ONCE) + len(OFTEN) and invalid
    chosen = {}
    mismatchable = [c for c in valid if broken.can_mismatch(c)]
    chosen[mismatchable[0].id] = "mismatch"
    rest = [c for c in valid if c.id not in chosen]
    for c, b in zip(rest, ONCE + [b for b in OFTEN if b != "mismatch"] * 10):
        chosen[c.id] = b
    for i, c in enumerate(invalid):
        chosen[c.id] = ["refuse", "accept", "unsupported"][i % 3]
    env = write_plan(tmp / "plan.json", chosen)
    out = tmp / "out"
    proc = run_cli("--backend", BROKEN, "--spec", SPECS, "--profile", "smoke", "--jobs", "2", "--timeout", "6",
                   "--memory-limit", "300", "--out", str(out), env=env)
    return proc, out, {c.id: c for c in cases}, chosen, env


def test_every_verdict_right(broken_run):
    proc, out, cases, chosen, _ = broken_run
    # the harness errors planned make the run exit 1: opconform failed on some cases
    assert proc.returncode == 1 and "2 harness-error(s): opconform itself failed" in proc.stdout, proc.stderr[-2000:]
    got = rows(out)
    assert sorted(r["case_id"] for r in got) == sorted(cases)  # none lost, none twice
    for r in got:
        case = cases[r["case_id"]]
        assert r["verdict"] == broken.expected_verdict(case, chosen[case.id]), (chosen[case.id], r["detail"])
    # slow is judged by the stress profile only
    assert {r["verdict"] for r in got} == {v.value for v in Verdict} - {Verdict.SLOW.value}
    details = " ".join(r["detail"] for r in got)
    for text in ("SIGSEGV", "SIGABRT", "MiB limit", "per-case timeout"):
        assert text in details


def test_results_carry_everything_to_replay(broken_run):
    _, out, cases, _, _ = broken_run
    for r in rows(out):
        assert Case.from_json(r["case"]).id == r["case_id"]
        assert set(r["extra"]) >= {"label", "expected_kind", "relation", "attributes", "dtypes", "shapes",
                                   "outputs_requested", "shard"}
        assert r["backend_seconds"] >= 0 and r["harness_seconds"] >= 0 and r["build_seconds"] >= 0
    meta = json.loads((out / "run.json").read_text())
    assert meta["backend"] == BROKEN and meta["profile"] == "smoke" and meta["finished"]
    assert set(meta["machine"]) == {"platform", "python", "cpu_count", "hostname"}


def test_replay_one_case_isolated(broken_run):
    _, out, cases, chosen, env = broken_run
    by_verdict = {r["verdict"]: r["case_id"] for r in rows(out)}
    proc = run_cli("--replay", str(out), "--case", by_verdict["mismatch"], env=env)
    assert proc.returncode == 1 and "mismatch (recorded: mismatch)" in proc.stdout
    proc = run_cli("--replay", str(out), "--case", by_verdict["crash"], "--timeout", "6", "--memory-limit", "300", env=env)
    assert proc.returncode == 1 and "crash (recorded: crash)" in proc.stdout
    proc = run_cli("--replay", str(out), "--case", "ffffffffffffffff", env=env)
    assert proc.returncode == 2 and "no case 'ffffffffffffffff'" in proc.stderr


def test_harness_errors_are_result_lines_never_the_backends(broken_run):
    """A broken adapter conversion and a death in adapter code: each a result line with verdict
    harness-error, the one-line message saying where, and the case to replay; listed in run.json and
    in the summary apart from the backend's failures."""
    proc, out, cases, chosen, env = broken_run
    got = {chosen[r["case_id"]]: r for r in rows(out) if r["verdict"] == "harness-error"}
    assert set(got) == {"harness", "harness-death"}
    assert got["harness"]["backend_message"].startswith("ValueError: Changing the dtype of a 0d array")
    assert "(at backends/testing/broken.py:" in got["harness"]["backend_message"]
    assert "died outside the backend, in opconform's own code: worker killed by SIGSEGV" in got["harness-death"]["backend_message"]
    for r in got.values():
        assert r["detail"].startswith("opconform failed on this case, not the backend")
        assert Case.from_json(r["case"]).id == r["case_id"]
    meta = json.loads((out / "run.json").read_text())
    assert {h["case_id"] for h in meta["harness_errors"]} == {r["case_id"] for r in got.values()}
    assert "harness-error (opconform's own failure, not the backend's)" in proc.stderr
    replayed = run_cli("--replay", str(out), "--case", got["harness"]["case_id"], env=env)
    assert replayed.returncode == 1 and "harness-error (recorded: harness-error)" in replayed.stdout


def test_summary_counts_per_verdict(broken_run):
    proc, out, *_ = broken_run
    counts = Counter(r["verdict"] for r in rows(out))
    assert f"{len(rows(out))} cases run" in proc.stderr
    assert "verdicts per spec" in proc.stderr and "onnx::GatherND-13" in proc.stderr
    assert counts["crash"] == 3 and counts["timeout"] == 1


@pytest.mark.parametrize("args, says", [
    (["--jobs", "0", "--out", "x"], "--jobs: got '0', expected a positive number"),
    (["--profile", "huge", "--out", "x"], "invalid choice: 'huge'"),
    (["--shard", "3/2", "--out", "x"], "--shard '3/2': expected K/N"),
    (["--profile", "smoke"], "--out DIR is required"),
    (["--backend", "nope", "--out", "x"], "unknown backend 'nope'"),
    (["--backend", "no.such.module:Thing", "--out", "x"], "cannot import module 'no.such.module'"),
    (["--replay", "x"], "--replay DIR and --case ID go together"),
    (["--spec", "onnx::NoSuchOperator*", "--out", "x"], "matches no spec version"),
])
def test_wrong_flags_one_line_exit_2(tmp_path, args, says):
    proc = run_cli(*[a if a != "x" else str(tmp_path / "o") for a in args])
    assert proc.returncode == 2
    assert says in proc.stderr.strip().splitlines()[-1]  # one line (argparse puts its usage above it)
    assert "Traceback" not in proc.stderr


def test_refuses_to_overwrite_results(broken_run):
    _, out, *_ = broken_run
    proc = run_cli("--backend", BROKEN, "--spec", "onnx::Abs-13", "--out", str(out))
    assert proc.returncode == 2 and "already holds results; pass --resume" in proc.stderr
