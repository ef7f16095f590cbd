"""Helpers for the runner's tests: run the real command line, read results, plan misbehaviours."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from opconform.backends import Backend

BROKEN = "opconform.backends.testing.broken:BrokenBackend"


def run_cli(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opconform", "run", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "160", **(env or {})}, timeout=timeout)


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (Path(out) / "results.jsonl").read_text().splitlines()]


def write_plan(path: Path, plan: dict) -> dict:
    path.write_text(json.dumps(plan))
    return {"OPCONFORM_BROKEN_PLAN": str(path)}


class NeedsMissingLibrary(Backend):
    """Stands for a built-in backend whose library is not installed (see test_backend_*)."""

    def __init__(self) -> None:
        import opconform_no_such_runtime  # noqa: F401


def planned_cases(spec_ids: str, profile: str = "smoke", seed: int = 0) -> list:
    """The cases `opconform run` plans, computed in a fresh interpreter as the command does (this test
    process has the project's Hypothesis test profile loaded, and generate() inherits its settings)."""
    from opconform.model import Case

    code = ("import json,sys; from opconform.suites import plan; "
            "print(json.dumps([c.to_json() for s in sys.argv[1].split(',') for c in plan.cases_for(s, sys.argv[2], int(sys.argv[3])).cases]))")
    proc = subprocess.run([sys.executable, "-c", code, spec_ids, profile, str(seed)], capture_output=True, text=True, check=True)
    return [Case.from_json(d) for d in json.loads(proc.stdout)]
