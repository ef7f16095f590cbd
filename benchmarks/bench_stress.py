"""The stress profile's own cost: wall time per stressed spec version on a backend, and, per stress
case, the oracle's time against the backend's at the largest size both ran.

    python benchmarks/bench_stress.py [--backend onnxruntime] [--spec PATTERN] [--cap 0.5]

Each spec version runs as its own stress run (a fresh worker, no cache), one after the other, so
its wall time is its own. Target (issue 13): a stress run of a few spec versions takes a few
minutes on 2 cores, i.e. at most about 60 s per spec version; the table says which pass it.
Times per size are the fastest of the warm runs (what the verdict reads); the ratio is backend
over oracle (below 1: the backend is faster than NumPy).
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from time import perf_counter

from opconform import specs
from opconform.suites import results, stress
from opconform.suites.runner import RunConfig

TARGET_SECONDS = 60.0  # per spec version
ROW = "{:24} {:18} {:>7} {:>5} {:>11} {:>9} {:>9} {:>7} {:>6} {}"


def _num(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--spec", default=None, help="spec pattern (default: every spec version with a stress block)")
    ap.add_argument("--cap", type=float, default=stress.Settings().cap, help="seconds a run may take before its ladder stops")
    args = ap.parse_args()
    versions = [v for v in specs.select(args.spec, strict=True) if v.stress is not None]
    if not versions:
        raise SystemExit(f"--spec {args.spec!r}: no spec version with a stress block")
    settings = stress.Settings(cap=args.cap)
    print(f"backend {args.backend}, cap {args.cap:g} s, ladder {settings.start:,}..{settings.stop:,}, {settings.per_decade} a decade")
    print(ROW.format("spec version", "case", "wall s", "rungs", "largest n", "oracle s", "backend s", "ratio", "slope", "verdict"))
    total, over = 0.0, []
    for v in versions:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            t0 = perf_counter()
            stress.run(RunConfig(backend=args.backend, out=out, spec_pattern=v.id, profile="stress"), settings=settings)
            wall = perf_counter() - t0
            rows = results.scan(out / results.RESULTS)[0]
        total += wall
        if wall > TARGET_SECONDS:
            over.append(v.id)
        for k, case in enumerate(v.stress.cases):
            rungs = [r for r in rows if r["extra"].get("stress", {}).get("ladder") == case.name]
            ladder = next((r for r in rows if r["extra"].get("stress_ladder", {}).get("case") == case.name), None)
            table = ladder["extra"]["stress_ladder"]["table"] if ladder else []
            both = [t for t in table if t["backend_seconds"] and t["oracle_seconds"]]
            top = both[-1] if both else None
            slope = ladder["extra"]["stress_ladder"]["slope"] if ladder else None
            cells = [v.id if k == 0 else "", case.name, _num(wall if k == 0 else None, ".1f"), str(len(rungs)),
                     _num(top and top["n"], ","), _num(top and top["oracle_seconds"], ".4f"),
                     _num(top and top["backend_seconds"], ".4f"),
                     _num(top and top["backend_seconds"] / top["oracle_seconds"], ".3g"), _num(slope, ".2f"),
                     ladder["verdict"] if ladder else "no ladder line"]
            print(ROW.format(*cells))
    print(f"total {total:.1f} s for {len(versions)} spec version(s), {total / len(versions):.1f} s each "
          f"(target <= {TARGET_SECONDS:g} s each): {'met' if not over else 'over for ' + ', '.join(over)}")


if __name__ == "__main__":
    main()
