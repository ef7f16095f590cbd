"""Cases per second for jobs = 1, 2, 4, ... up to the core count, each a whole `opconform run`
(execution phase), with the harness share of worker time and how busy the workers were.

    python benchmarks/bench_scaling.py [--spec 'onnx::[A-C]*'] [--profile ci] [--backend onnxruntime]
                                       [--cases-from DIR] [--jobs 1,2] [--executor local|dask]

The cases are planned once (the case cache, or --cases-from an earlier results directory), then
each job count runs them from that plan in a fresh results directory, one after the other in this
one process's lifetime: compare the rows of one run of this script, on a machine whose load you
know (`uptime` is printed before and after). Target (issue 18): 2 jobs at least 1.7x the cases
per second of 1 job. "busy" is the workers' recorded time (harness + backend + build) over jobs x
execution wall time: below 100%, workers waited (for the parent, for a batch, or for a core).
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path


def uptime() -> str:
    try:
        return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load average unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--spec", default="onnx::[A-C]*")
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--cases-from", default=None, help="the cases of an earlier results directory")
    ap.add_argument("--jobs", default=None, help="job counts, comma-separated (default 1, 2, 4, ... up to the cores)")
    ap.add_argument("--executor", default="local", choices=("local", "dask"))
    args = ap.parse_args()

    from opconform.suites.runner import RunConfig, run

    cores = os.cpu_count() or 1
    counts = [int(j) for j in args.jobs.split(",")] if args.jobs else sorted({min(2 ** k, cores) for k in range(cores.bit_length() + 1)})
    print(f"backend {args.backend}, specs {args.spec}, {args.cases_from or 'profile ' + args.profile}, "
          f"executor {args.executor}, {cores} cores; {uptime()}")
    rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = args.cases_from
        for jobs in counts:
            out = Path(tmp) / f"jobs{jobs}"
            s = run(RunConfig(backend=args.backend, out=out, spec_pattern=args.spec, profile=args.profile, jobs=jobs,
                              cases_from=source, probe=False, executor=args.executor))
            if source is None:  # the same cases for every job count: the first run's
                source = str(out)
            inside = s.harness_seconds + s.backend_seconds + s.build_seconds
            rates[jobs] = s.cases_run / s.execution_seconds if s.execution_seconds else 0.0
            print(f"jobs {jobs:>2}: {s.cases_run} cases in {s.execution_seconds:6.1f} s = {rates[jobs]:7.1f} cases/s "
                  f"({rates[jobs] / rates[counts[0]]:.2f}x jobs {counts[0]}); harness share "
                  f"{s.harness_seconds / inside if inside else 0:.1%} of worker time; busy "
                  f"{inside / (jobs * s.execution_seconds) if s.execution_seconds else 0:.0%}")
    print(uptime())


if __name__ == "__main__":
    main()
