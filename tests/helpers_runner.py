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


def run_planned(spec_id: str, cases: list, behaviours: list[str], directory: Path, *, timeout: float = 30,
                memory_limit_mb: int | None = None):
    """Run the cases in one batch on one worker of the broken backend, each behaving as planned:
    (verdicts per case id, (status, message) per lost case id, the pool's stats)."""
    import multiprocessing

    import pytest

    from opconform import specs
    from opconform.backends.testing import broken
    from opconform.suites.pool import WorkerPool

    plan = Path(directory) / "plan.json"
    plan.write_text(json.dumps({c.id: b for c, b in zip(cases, behaviours)}))
    got: dict = {}
    lost: dict = {}
    pool = WorkerPool(BROKEN, jobs=1, timeout=timeout, memory_limit_mb=memory_limit_mb, shard=None,
                      on_result=lambda j: got.setdefault(j.case_id, []).append(j.verdict),
                      on_lost=lambda item, status, message: lost.setdefault(item[1].id, []).append((status, message)))
    # spawned workers read the plan from the environment they start with (a fork server started
    # earlier in this session would not have it)
    pool._ctx = multiprocessing.get_context("spawn")
    mp = pytest.MonkeyPatch()
    mp.setenv(broken.PLAN_ENV, str(plan))
    try:
        stats = pool.run([[(spec_id, c) for c in cases]], {spec_id: specs.load(spec_id)})
    finally:
        mp.undo()
    return got, lost, stats
