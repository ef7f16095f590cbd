"""Covering rows in the ci plan, before and after: pair coverage, case counts, generation time.

    python benchmarks/bench_coverage.py [--spec PATTERN] [--seed 11] [--jobs 2] [--json]

"before" is the ci plan without covering rows (run profile `ci-norows`: every valid case drawn
freely, as before issue 11); "after" is the ci profile (one valid case per 2-wise row, fewer
value variants for spec versions with many rows). Printed: for onnx::Unique-11, onnx::Cast-21 and
onnx::LayerNormalization-17, the pairs of factor values the valid cases exercise
(generator/tuple_coverage.py, read from the cases themselves); over every matching spec version,
cases planned, valid cases, generation time (wall, `--jobs` processes, no case cache), pairs
exercised, rows and rows no case could hold (with the reason). The ci wall time on a backend is
measured with `opconform run --backend onnxruntime --profile ci|ci-norows --no-case-cache`.
"""
from __future__ import annotations

import argparse
import json
from time import perf_counter

from opconform.suites import plan, profiles

FOCUS = ("onnx::Unique-11", "onnx::Cast-21", "onnx::LayerNormalization-17")


def measure(spec_ids: list[str], profile: str, seed: int, jobs: int) -> dict:
    t0 = perf_counter()
    planned = plan.collect(spec_ids, profile, seed, jobs, timeout=900.0)
    wall = perf_counter() - t0
    out = {"profile": profile, "wall_s": wall, "specs": {}}
    for sc in planned:
        valid = [c for c in sc.cases if c.expected.kind != "error" and not c.label.startswith("breaks:")]
        cov = sc.coverage or (plan.exercised_coverage(_spec(sc.spec_id), sc.cases, 2) if sc.error is None else [])
        pairs = next((c for c in cov if c["t"] == 2), {"total": 0, "exercised": 0})
        out["specs"][sc.spec_id] = {"cases": len(sc.cases), "valid": len(valid), "seconds": sc.seconds,
                                    "pairs_total": pairs["total"], "pairs_exercised": pairs["exercised"],
                                    "rows": sc.rows, "infeasible": sc.infeasible, "error": sc.error}
    return out


def _spec(sid: str):
    from opconform import specs

    return specs.load(sid)


def totals(m: dict) -> dict:
    s = m["specs"].values()
    return {"cases": sum(x["cases"] for x in s), "valid": sum(x["valid"] for x in s),
            "pairs_total": sum(x["pairs_total"] for x in s), "pairs_exercised": sum(x["pairs_exercised"] for x in s),
            "rows": sum(x["rows"] for x in s), "infeasible_rows": sum(len(x["infeasible"]) for x in s),
            "errors": sum(bool(x["error"]) for x in s), "generation_wall_s": m["wall_s"],
            "generation_cpu_s": sum(x["seconds"] for x in s)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=None, help="comma-separated globs over spec ids (default: every spec)")
    ap.add_argument("--seed", default=11, type=int)
    ap.add_argument("--jobs", default=2, type=int)
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    versions, _ = plan.select(args.spec)
    ids = [v.id for v in versions]
    runs = {name: measure(ids, name, args.seed, args.jobs) for name in ("ci-norows", "ci")}
    if args.json:
        print(json.dumps({k: {"totals": totals(m), **m} for k, m in runs.items()}, indent=1, default=str))
        return 0
    before, after = runs["ci-norows"], runs["ci"]
    print(f"seed {args.seed}, {len(ids)} spec versions, jobs {args.jobs}; before = ci-norows, after = ci")
    print(f"{'spec version':32} {'pairs before':>14} {'pairs after':>14} {'cases before':>13} {'cases after':>12}")
    for sid in [s for s in FOCUS if s in after["specs"]]:
        b, a = before["specs"][sid], after["specs"][sid]
        print(f"{sid:32} {_frac(b):>14} {_frac(a):>14} {b['cases']:>13} {a['cases']:>12}")
    tb, ta = totals(before), totals(after)
    print()
    for key in ("cases", "valid", "pairs_exercised", "pairs_total", "rows", "infeasible_rows", "errors",
                "generation_wall_s", "generation_cpu_s"):
        fmt = (lambda v: f"{v:.1f}") if key.endswith("_s") else str
        print(f"{key:20} before {fmt(tb[key]):>10}   after {fmt(ta[key]):>10}")
    print(f"{'pair coverage':20} before {_pct(tb):>10}   after {_pct(ta):>10}")
    infeasible = [(sid, i, why) for sid, x in after["specs"].items() for i, why in x["infeasible"]]
    if infeasible:
        print(f"\nrows no case could hold ({len(infeasible)}):")
        for sid, i, why in infeasible:
            print(f"  {sid} row {i}: {why}")
    return 0


def _frac(x: dict) -> str:
    return f"{x['pairs_exercised']}/{x['pairs_total']}"


def _pct(t: dict) -> str:
    return f"{t['pairs_exercised'] / max(t['pairs_total'], 1):.1%}"


if __name__ == "__main__":
    raise SystemExit(main())
