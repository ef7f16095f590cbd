"""Runner speed on onnxruntime with the ci profile: cases per second, models built per case, and the
share of wall time spent outside the backend.

    python benchmarks/bench_runner.py [--spec PATTERN] [--jobs N] [--profile ci] [--backend onnxruntime]

Targets (issue 4): at least 10 cases share each built model on average, and the harness (everything
but the backend's own build and run calls) under 25% of the execution wall time. Generation is
reported apart: it is the generator's cost, paid once and then served from the case cache.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from time import perf_counter

from opconform.suites.runner import RunConfig, run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--spec", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=None, help="keep the results here (default: a temporary directory)")
    ap.add_argument("--cases-from", default=None, help="run the cases of an earlier results directory (no generation)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = perf_counter()
        s = run(RunConfig(backend=args.backend, out=args.out or Path(tmp) / "out", spec_pattern=args.spec,
                          profile=args.profile, jobs=args.jobs, cases_from=args.cases_from))
        wall = perf_counter() - t0
    cases = s.cases_run
    exec_wall = s.execution_seconds
    inside = s.backend_seconds + s.build_seconds  # summed over workers
    capacity = exec_wall * args.jobs  # worker-seconds available during execution
    print(f"backend {args.backend}, profile {args.profile}, jobs {args.jobs}, specs {args.spec or 'all'}")
    print(f"cases run                 {cases}")
    print(f"wall time                 {wall:.1f} s (generation {s.generation_seconds:.1f} s, execution {exec_wall:.1f} s)")
    print(f"cases per second          {cases / exec_wall if exec_wall else 0:.1f} (execution), {cases / wall if wall else 0:.1f} (overall)")
    print(f"models built              {s.models_built}; cases per built model {cases / max(s.models_built, 1):.2f} (target >= 10)")
    print(f"inside the backend        run {s.backend_seconds:.1f} s + build {s.build_seconds:.1f} s (worker-seconds)")
    print(f"harness share of exec     {1 - inside / capacity if capacity else 0:.1%} (target < 25%): "
          f"worker-seconds {capacity:.1f}, of which per-case harness {s.harness_seconds:.1f} s, "
          f"the rest ({max(capacity - inside - s.harness_seconds, 0):.1f} s) worker start-up, messages, "
          f"the parent's writing and idle or CPU-starved workers")
    if cases:
        print(f"per case                  harness {s.harness_seconds / cases * 1e3:.3f} ms, backend run "
              f"{s.backend_seconds / cases * 1e3:.3f} ms, build {s.build_seconds / cases * 1e3:.3f} ms")
    print(f"generation share of wall  {s.generation_seconds / wall if wall else 0:.1%}")


if __name__ == "__main__":
    main()
