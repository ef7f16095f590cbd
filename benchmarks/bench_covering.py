"""Covering arrays over every spec version: how many rows the ci (2-wise) and certify (3-wise)
profiles would need, and how long they take to build.

    python benchmarks/bench_covering.py [--spec PATTERN] [--seed 0] [--json] [--synthetic]

One line per spec version: factors (count, and the product of their sizes: every combination),
constraints compiled from its relations, rows and seconds at t=2 and t=3, and every row checked
against the constraints. Totals at the end decide the ci and certify case budgets (issue 11).
--synthetic adds the sizes and times for uniform factor sets (10 factors of 30 values at t=2...).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from time import perf_counter

from opconform import specs
from opconform.generator.covering import covering_array
from opconform.generator.factors import Factor, constraints, factors

SYNTHETIC = [(4, 3, 2), (10, 2, 3), (10, 30, 2), (10, 10, 3), (10, 5, 3), (6, 30, 3)]  # (factors, values, t)


def measure(spec, seed: int) -> dict:
    t0 = perf_counter()
    fs = factors(spec)
    cs = constraints(spec)
    derive = perf_counter() - t0
    out = {"spec": spec.id, "factors": len(fs), "combinations": math.prod(len(f.values) for f in fs),
           "constraints": [c.id for c in cs.items], "derive_s": derive}
    for t in (2, 3):
        t0 = perf_counter()
        rows = covering_array(fs, t, allowed=cs, scope=cs.scope, seed=seed)
        out[f"t{t}_s"] = perf_counter() - t0
        out[f"t{t}_rows"] = len(rows)
        if not all(cs(r) for r in rows):
            raise AssertionError(f"{spec.id}: a {t}-wise row breaks a constraint")
    return out


def synthetic(seed: int) -> list[dict]:
    out = []
    for n, v, t in SYNTHETIC:
        fs = [Factor(f"f{i}", tuple(range(v))) for i in range(n)]
        t0 = perf_counter()
        rows = covering_array(fs, t, seed=seed)
        out.append({"factors": n, "values": v, "t": t, "rows": len(rows), "lower_bound": v ** t,
                    "seconds": perf_counter() - t0})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=None, help="comma-separated globs over spec ids (default: every spec)")
    ap.add_argument("--seed", default=0, type=int)
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    ap.add_argument("--synthetic", action="store_true", help="also uniform factor sets")
    args = ap.parse_args(argv)
    lines = [measure(v, args.seed) for v in specs.select(args.spec, strict=True)]
    totals = {
        "spec_versions": len(lines),
        "t2_rows": sum(x["t2_rows"] for x in lines),
        "t3_rows": sum(x["t3_rows"] for x in lines),
        "t2_s": sum(x["t2_s"] for x in lines),
        "t3_s": sum(x["t3_s"] for x in lines),
        "derive_s": sum(x["derive_s"] for x in lines),
        "with_constraints": sum(bool(x["constraints"]) for x in lines),
        "max_t2_rows": max((x["t2_rows"], x["spec"]) for x in lines),
        "max_t3_rows": max((x["t3_rows"], x["spec"]) for x in lines),
    }
    extra = synthetic(args.seed) if args.synthetic else []
    if args.json:
        print(json.dumps({"specs": lines, "totals": totals, "synthetic": extra}, indent=1))
        return 0
    print(f"{'spec version':34} {'factors':>7} {'combos':>9} {'2-wise':>7} {'s':>7} {'3-wise':>7} {'s':>7}  constraints")
    for x in lines:
        print(f"{x['spec']:34} {x['factors']:>7} {x['combinations']:>9} {x['t2_rows']:>7} {x['t2_s']:>7.3f} "
              f"{x['t3_rows']:>7} {x['t3_s']:>7.3f}  {','.join(x['constraints'])}")
    print(f"\n{totals['spec_versions']} spec versions ({totals['with_constraints']} with constraints): "
          f"2-wise {totals['t2_rows']} rows in {totals['t2_s']:.2f} s, 3-wise {totals['t3_rows']} rows in "
          f"{totals['t3_s']:.2f} s; deriving factors and constraints {totals['derive_s']:.2f} s")
    print(f"largest: 2-wise {totals['max_t2_rows'][0]} rows ({totals['max_t2_rows'][1]}), "
          f"3-wise {totals['max_t3_rows'][0]} rows ({totals['max_t3_rows'][1]})")
    for x in extra:
        print(f"synthetic: {x['factors']} factors of {x['values']} values, t={x['t']}: {x['rows']} rows "
              f"(at least {x['lower_bound']}) in {x['seconds']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
