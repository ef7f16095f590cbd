"""Replaying one recorded case: `opconform run --replay DIR --case ID [--backend NAME]`.

The case comes back byte for byte from DIR/results.jsonl (every Result carries its case) and runs
in an isolated worker like any other, so a case that crashed the backend crashes only that worker."""
from __future__ import annotations

from pathlib import Path

from opconform import specs
from opconform.model import Case, Outcome
from opconform.suites import record, results
from opconform.suites.pool import WorkerPool


def find(results_dir: Path, case_id: str) -> dict:
    rows, _ = results.scan(Path(results_dir) / results.RESULTS)
    for r in rows:
        if r["case_id"] == case_id or r["case_id"].startswith(case_id):
            return r
    raise KeyError(f"{Path(results_dir) / results.RESULTS}: no case {case_id!r}; expected a case_id from that file")


def rerun(spec_id: str, case: Case, backend: str, *, timeout: float, memory_limit_mb: int | None = None) -> dict:
    """The fresh Result of one case on a backend, in an isolated worker."""
    got: list[dict] = []

    def lost(item, status: str, message: str) -> None:  # crash, timeout or harness-error: judge() says which
        got.append(record.make(specs.load(spec_id), case, Outcome(status, message=message), backend))

    def done(judged: record.Judged) -> None:
        got.append(judged.result())

    pool = WorkerPool(backend, jobs=1, timeout=timeout, memory_limit_mb=memory_limit_mb, shard=None,
                      on_result=done, on_lost=lost)
    pool.run([[(spec_id, case)]], {spec_id: specs.load(spec_id)})
    return got[0]


def replay(results_dir: Path, case_id: str, backend: str | None, *, timeout: float, memory_limit_mb: int | None = None) -> int:
    row = find(results_dir, case_id)
    if backend is None:
        backend = results.read_run(results_dir).get("backend") or row["backend"]
    fresh = rerun(row["spec_id"], Case.from_json(row["case"]), backend, timeout=timeout, memory_limit_mb=memory_limit_mb)
    print(f"{fresh['spec_id']} case {fresh['case_id']} on {backend}: {fresh['verdict']} (recorded: {row['verdict']})")
    print(f"  {fresh['detail']}")
    if fresh["backend_message"]:
        print(f"  backend said: {fresh['backend_message']}")
    return 0 if fresh["verdict"] in ("pass", "unsupported") else 1
