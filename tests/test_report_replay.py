"""The replay command a report prints runs as printed, from another working directory, for a plugin
backend too (`--backend package.module:Class`, as the run was started; the results' backend name
"broken" is not something --backend accepts)."""
from __future__ import annotations

import html as htmlmod
import os
import re
import shlex
import subprocess
import sys

import pytest

from helpers_runner import BROKEN, run_cli, write_plan
from opconform.cli import main

SPEC = "onnx::Abs-13"


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory):
    """A real run of the plugin-style broken backend whose every valid case mismatches."""
    tmp = tmp_path_factory.mktemp("replay")
    env = write_plan(tmp / "plan.json", {"*": "mismatch"})
    out = tmp / "results"
    proc = run_cli("--backend", BROKEN, "--spec", SPEC, "--jobs", "1", "--out", str(out), env=env)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # 1 where the run exits non-zero on failures
    return tmp, out, env


def _replays(page: str) -> list[str]:
    return [htmlmod.unescape(m) for m in re.findall(r'<pre class="replay">([^<]*)</pre>', page)]


def test_printed_replay_of_a_plugin_backend_runs_from_anywhere(broken_run):
    tmp, out, env = broken_run
    report = tmp / "report"
    assert main(["report", str(out), "--out", str(report), "--no-coverage"]) == 0
    page = next(p for p in (report / "details").glob("d-broken-*.html")).read_text(encoding="utf-8")
    command = next(c for c in _replays(page) if "#" not in c)
    argv = shlex.split(command)
    assert argv[:3] == ["opconform", "run", "--backend"] and argv[3] == BROKEN
    assert argv[argv.index("--replay") + 1] == str(out.resolve())
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    # as printed: the `opconform` on PATH (this interpreter's), run in an unrelated directory
    bindir = os.path.dirname(sys.executable)
    proc = subprocess.run(argv, cwd=elsewhere, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")})
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the replay's own status: the failure reproduced
    case_id = argv[argv.index("--case") + 1]
    assert f"{SPEC} case {case_id} on {BROKEN}:" in proc.stdout
    assert "(recorded: " in proc.stdout
