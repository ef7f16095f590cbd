"""Wall time of a whole ci run on a backend, with covering rows (profile `ci`) against without them
(profile `ci-norows`, the draws before issue 11), in one run of this script, no case cache.

    python benchmarks/bench_ci_walltime.py [--backend onnxruntime] [--seed 11] [--spec PATTERN] [--jobs N]

Issue 11's targets: the ci wall time grows by no more than 50%, and under 10% of ci's cases come
back "unsupported". Printed per profile: wall time (probing + generation + execution), cases, and
the share of cases the backend answered "unsupported"; for ci, the probing time, probe cases run
and unsupported factor values found (the probe cache starts empty: a fresh temporary
$OPCONFORM_CACHE, so probing is paid as on a first run); then the ratio ci / ci-norows.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from time import perf_counter

from opconform.suites.runner import RunConfig, run


def one(profile: str, args: argparse.Namespace, out: Path) -> dict:
    config = RunConfig(backend=args.backend, out=out, profile=profile, seed=args.seed, jobs=args.jobs,
                       spec_pattern=args.spec, case_cache=False)
    t0 = perf_counter()
    summary = run(config)
    wall = perf_counter() - t0
    totals = summary.totals
    cases = sum(totals.values())
    return {"wall": wall, "generation": summary.generation_seconds, "execution": summary.execution_seconds,
            "cases": cases, "unsupported": totals.get("unsupported", 0) / cases if cases else 0.0,
            "probing": summary.probe_seconds, "probes": summary.probes,
            "values": sum(len(v) for v in summary.unsupported_factors.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--spec", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["OPCONFORM_CACHE"] = str(Path(tmp) / "cache")  # no probe answers from earlier runs
        figures = {p: one(p, args, Path(tmp) / p) for p in ("ci-norows", "ci")}
    for p, f in figures.items():
        probing = (f"probing {f['probing']:.1f} s ({f['probes']} probe cases, {f['values']} unsupported factor values), "
                   if f["probes"] else "")
        print(f"{p:10s} wall {f['wall']:6.1f} s ({probing}generation {f['generation']:.1f} s, execution {f['execution']:.1f} s); "
              f"{f['cases']} cases, {f['unsupported']:.1%} unsupported")
    ratio = figures["ci"]["wall"] / figures["ci-norows"]["wall"]
    print(f"ci / ci-norows wall time: {ratio:.2f}x (target <= 1.50x)")


if __name__ == "__main__":
    main()
