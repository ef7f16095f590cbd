"""What a crash costs the runner: cases per second of a crash-heavy run against a healthy one of
the same cases, with a spare worker taking over after each death and without (a fresh worker
started then, as before the spare).

    python benchmarks/bench_crash_cost.py [--jobs 1] [--crash-every 3] [--cases 300]
    python benchmarks/bench_crash_cost.py --backend tract --spec 'onnx::MatMul*,onnx::Gemm*' --profile ci

The first form runs the deliberately broken backend on generated onnx::Abs-13 cases: healthy,
every case answered right; crash-heavy, every --crash-every-th case aborts the worker. Target
(issue 18 item 2): a crash-heavy run at nearly the healthy speed (ratio near 1 with the spare).
The second form runs a real backend's cases (its crashes are its own) with and without the spare.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from time import perf_counter

from opconform.backends.testing import broken

BROKEN = "opconform.backends.testing.broken:BrokenBackend"


def _cases(spec_id: str, profile: str, count: int) -> list:
    from opconform import specs
    from opconform.suites import case_cache, plan

    out = []
    key = case_cache.code_key()  # the case cache: a second run draws nothing
    for sid in [v.id for v in specs.select(spec_id)]:
        out += [(sid, c) for c in plan.cases_for(sid, profile, 0, key).cases]
    return out[:count] if count else out


def _timed(backend: str, items: list, jobs: int, spare: bool) -> tuple[float, object]:
    from opconform import specs
    from opconform.suites import plan
    from opconform.suites.pool import WorkerPool

    pool = WorkerPool(backend, jobs=jobs, timeout=60, memory_limit_mb=None, shard=None,
                      on_result=lambda j: None, on_lost=lambda *a: None, spare=spare)
    batches = plan.batches(plan.group(items), 20)
    versions = {sid: specs.load(sid) for sid, _ in items}
    t0 = perf_counter()
    stats = pool.run(batches, versions)
    return perf_counter() - t0, stats


def _line(label: str, n: int, seconds: float, stats) -> float:
    rate = n / seconds
    print(f"{label:<34} {n:>6} cases {seconds:7.2f} s {rate:8.1f} cases/s; deaths {stats.crashes + stats.harness_deaths}, "
          f"workers started {stats.workers_started}, spares used {stats.spares_used}")
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default=None, help="a real backend (default: the broken test backend)")
    ap.add_argument("--spec", default="onnx::Abs-13")
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--crash-every", type=int, default=3)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # one timed run, in a child process
    args = ap.parse_args()
    if args.one:
        return _one(args.one)
    if args.backend:
        items = _cases(args.spec, args.profile, 0)
        print(f"backend {args.backend}, specs {args.spec}, profile {args.profile}, jobs {args.jobs}")
        with_spare = _line("with a spare worker", len(items), *_timed(args.backend, items, args.jobs, True))
        without = _line("without (fresh worker per death)", len(items), *_timed(args.backend, items, args.jobs, False))
        print(f"spare / no spare: {with_spare / without:.2f}x the cases per second")
        return
    items = _cases(args.spec, args.profile, args.cases)
    valid = [c for _, c in items if c.expected.kind == "outputs"]
    items = [(sid, c) for sid, c in items if c.expected.kind == "outputs"]
    with tempfile.TemporaryDirectory() as tmp:
        healthy, heavy = Path(tmp) / "healthy.json", Path(tmp) / "heavy.json"
        healthy.write_text(json.dumps({"*": "pass"}))
        heavy.write_text(json.dumps({c.id: ("abort" if i % args.crash_every == 0 else "pass") for i, c in enumerate(valid)}))
        rates = {}
        print(f"broken backend, {args.spec}, {len(items)} valid cases, jobs {args.jobs}, "
              f"crash-heavy: every {args.crash_every}th case aborts")
        for name, plan_file in (("healthy", healthy), ("crash-heavy", heavy)):
            # the plan is read in the workers, which inherit the environment of the fork server
            # started by the first pool: one process per plan
            os.environ[broken.PLAN_ENV] = str(plan_file)
            for spare in (True, False):
                label = f"{name}, {'spare' if spare else 'no spare'}"
                rates[label] = _line(label, len(items), *_run_fresh(items, args.jobs, spare))
        print(f"crash-heavy / healthy, with the spare:    {rates['crash-heavy, spare'] / rates['healthy, spare']:.2f}")
        print(f"crash-heavy / healthy, without the spare: {rates['crash-heavy, no spare'] / rates['healthy, no spare']:.2f}")


def _run_fresh(items: list, jobs: int, spare: bool) -> tuple[float, object]:
    """_timed in a child process, so that its workers see the plan now in the environment."""
    import pickle
    import subprocess
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.pickle"
        path.write_bytes(pickle.dumps((items, jobs, spare)))
        subprocess.run([sys.executable, __file__, "--one", str(path)], check=True)
        return pickle.loads(path.read_bytes())


def _one(path: str) -> None:
    import pickle

    items, jobs, spare = pickle.loads(Path(path).read_bytes())
    Path(path).write_bytes(pickle.dumps(_timed(BROKEN, items, jobs, spare)))


if __name__ == "__main__":
    main()
