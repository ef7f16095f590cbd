"""Killing a run (SIGKILL, at any point) and resuming it loses no case and repeats none."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers_runner import BROKEN, planned_cases, rows, run_cli, write_plan
from opconform.suites import results

SPECS = "onnx::GatherND-13,onnx::Abs-13"


def _start(out, env):
    return subprocess.Popen([sys.executable, "-m", "opconform", "run", "--backend", BROKEN, "--spec", SPECS,
                             "--profile", "smoke", "--jobs", "2", "--out", str(out)],
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _lines(out):
    path = out / "results.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_then_resume_loses_nothing_repeats_nothing(tmp_path):
    env = write_plan(tmp_path / "plan.json", {"*": "slow"})  # every case answers right after 0.2 s
    expected = {c.id for c in planned_cases(SPECS)}
    out = tmp_path / "out"
    proc = _start(out, env)
    deadline = time.monotonic() + 240
    while _lines(out) < 5 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers, mid-run
    proc.wait()
    before = (out / "results.jsonl").read_bytes()
    assert 5 <= before.count(b"\n") < len(expected), "the kill should land mid-run"
    # a kill in the middle of a write leaves a torn last line: its case must be redone
    torn_case = json.loads(before.splitlines()[-1])["case_id"]
    kept = before[: before.rstrip(b"\n").rfind(b"\n") + 1]
    (out / "results.jsonl").write_bytes(kept + before.splitlines()[-1][:40])

    done = run_cli("--resume", "--out", str(out), "--backend", BROKEN, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    after = (out / "results.jsonl").read_bytes()
    assert after.startswith(kept)  # finished lines untouched
    ids = [r["case_id"] for r in rows(out)]
    assert len(ids) == len(set(ids))  # none repeated
    assert set(ids) == expected  # none lost, the torn one redone
    assert torn_case in ids
    assert json.loads((out / "run.json").read_text())["finished"]
    assert f"{len(kept.splitlines())} already done" in done.stderr.replace("\n", " ")


def test_scan_discards_only_a_torn_last_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"case_id": "a"}\n{"case_id": "b"}\n{"case_')
    found, good = results.scan(path)
    assert [r["case_id"] for r in found] == ["a", "b"] and good == len(b'{"case_id": "a"}\n{"case_id": "b"}\n')
    path.write_bytes(b'{"case_id": "a"}\nnot json\n{"case_id": "b"}\n')
    try:
        results.scan(path)
    except results.CorruptResults as e:
        assert "line 2 is not JSON" in str(e)
    else:
        raise AssertionError("a corrupt line in the middle must be reported")


def _recorded(tmp_path, **meta):
    from opconform.suites import runner

    out = tmp_path / "recorded"
    out.mkdir()
    results.write_run(out, {"backend": "reference", "profile": "smoke", "seed": 0, "spec_pattern": "onnx::Abs-13,onnx::Gather*",
                            "shard": None, "cases_from": None, **meta})
    return out, runner


def test_resume_takes_the_recorded_settings_and_keeps_the_sessions_own(tmp_path):
    out, runner = _recorded(tmp_path, seed=7, shard="1/2")
    fresh = runner.RunConfig(backend="reference", out=out, jobs=3, timeout=5.0)
    config = runner.resumed_config(fresh, {"spec_pattern": "onnx::Abs-13, onnx::Gather*", "shard": "1/2", "seed": 7})
    assert (config.seed, config.shard, config.spec_pattern, config.resume) == (7, "1/2", "onnx::Abs-13,onnx::Gather*", True)
    assert (config.jobs, config.timeout) == (3, 5.0)


@pytest.mark.parametrize("given, says", [
    ({"seed": 1}, "--seed 1 contradicts the recorded run (--seed 0)"),
    ({"backend": "onnxruntime"}, "--backend onnxruntime contradicts the recorded run (--backend reference)"),
    ({"profile": "ci"}, "--profile ci contradicts the recorded run (--profile smoke)"),
    ({"spec_pattern": "onnx::Abs*"}, "--spec 'onnx::Abs*' contradicts the recorded run (--spec 'onnx::Abs-13,onnx::Gather*')"),
    ({"shard": "2/2"}, "--shard 2/2 contradicts the recorded run (no --shard)"),
    ({"cases_from": "elsewhere"}, "--cases-from elsewhere contradicts the recorded run (no --cases-from)"),
])
def test_resume_refuses_a_setting_that_contradicts_the_record(tmp_path, given, says):
    out, runner = _recorded(tmp_path)
    with pytest.raises(ValueError) as e:
        runner.resumed_config(runner.RunConfig(backend="reference", out=out), given)
    assert says in str(e.value) and str(out) in str(e.value)


def test_resume_of_a_directory_without_a_run_is_refused(tmp_path):
    from opconform.suites import runner

    for path, says in ((tmp_path / "missing", "no such directory"), (tmp_path, "no run.json there")):
        with pytest.raises(ValueError, match=says):
            runner.resumed_config(runner.RunConfig(backend="reference", out=path))
    assert not (tmp_path / "missing").exists()
