"""`opconform run` stopped by SIGINT (Ctrl-C, or `timeout --signal=INT` around it): one line that
says so and where the results are, exit status 130, no traceback, and the results written before
the signal are kept: `--resume` finishes the same run with every case once. The broken test
backend answers every case right after 0.2 s, so that the signal always finds cases left to run
(onnxruntime ran all 139 cases in 0.7 s, sometimes before the signal came)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers_runner import BROKEN, rows, run_cli, write_plan

SPECS = "onnx::Add-14,onnx::Mul-14,onnx::Sub-14,onnx::Div-14,onnx::Unique-11,onnx::GatherND-13"


def _interruptible() -> None:
    """In the child: SIGINT's default disposition, as under a user's terminal. A process started
    with SIGINT ignored (the test worker's, as it was in a fresh-clone run under pytest-xdist) passes
    that on, and Python then installs no KeyboardInterrupt for it: the run ignored the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_run_says_so_in_one_line_and_keeps_its_results(tmp_path):
    out = tmp_path / "run"
    slow = write_plan(tmp_path / "plan.json", {"*": "slow"})
    proc = subprocess.Popen([sys.executable, "-m", "opconform", "run", "--backend", BROKEN, "--spec", SPECS,
                             "--jobs", "1", "--out", str(out), "--no-report"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "160", **slow}, preexec_fn=_interruptible)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.stat().st_size > 0:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.fail(f"the run ended before any result could be interrupted: {proc.stderr.read()[-2000:]}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last == f"opconform run: interrupted; the results so far stay in {out} (--resume goes on)"
    kept = {r["case_id"] for r in rows(out)}
    assert kept, "no result was kept"
    again = run_cli("--backend", BROKEN, "--spec", SPECS, "--jobs", "2", "--out", str(out), "--resume",
                    "--no-report", env=slow)
    assert again.returncode in (0, 1), again.stderr[-2000:]
    ids = [r["case_id"] for r in rows(out)]
    assert len(ids) == len(set(ids)) and kept <= set(ids)
    assert len(ids) > len(kept), "the run had finished before the signal: nothing was interrupted"
