"""Wall time of a compiler backend's run with its compiled models kept between runs, cold against
warm (issue 18: "the ci profile of every spec finishes within 10 minutes on each installed backend").

    python benchmarks/bench_compile_cache.py [--backend tvm] [--spec PATTERN] [--profile ci]
                                             [--seed 0] [--jobs 2] [--modes off,cold,warm] [--keep DIR]

Each mode is one `opconform run` of the same cases (same spec pattern, profile and seed), one
after the other in this script's run, so all share the machine's load: "off" with
OPCONFORM_COMPILE_CACHE=0 (every model compiled, nothing kept: as before the cache), "cold" on an
empty compile cache (every model compiled and kept), "warm" the same again on what "cold" kept.
Printed per mode, from the results' recorded times: cases, build seconds, run seconds and wall
time; then each mode's ratios to the first, and every case whose verdict or backend message
differs from the first mode's (a warm run must say what a cold one said).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

SUBSET = ("onnx::Abs-13,onnx::Add-14,onnx::Cast-23,onnx::Gather-13,onnx::Reshape-21,onnx::ReduceSum-13,"
          "onnx::Selu-6,onnx::Transpose-21,onnx::Concat-13,onnx::GatherND-13,onnx::Resize-19,onnx::Unique-11")
MODES = ("off", "cold", "warm")


def one(mode: str, args: argparse.Namespace, out: Path, cache: Path) -> dict:
    cmd = [sys.executable, "-m", "opconform", "run", "--backend", args.backend, "--profile", args.profile,
           "--seed", str(args.seed), "--jobs", str(args.jobs), "--spec", args.spec, "--out", str(out), "--no-report"]
    env = {**os.environ, "OPCONFORM_COMPILE_CACHE": "0" if mode == "off" else str(cache)}
    t0 = perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = perf_counter() - t0
    if not (out / "results.jsonl").exists():
        raise SystemExit(f"{mode}: opconform run wrote no results (exit {proc.returncode}): {proc.stderr[-500:]}")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {"wall": wall, "cases": len(rows),
            "build": sum(r.get("build_seconds") or 0 for r in rows),
            "run": sum(r.get("backend_seconds") or 0 for r in rows),
            "said": {r["case_id"]: (r["spec_id"], r["verdict"], r.get("backend_message") or "") for r in rows}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="tvm")
    ap.add_argument("--spec", default=SUBSET)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", default=",".join(MODES), help="which, in this order (off, cold, warm)")
    ap.add_argument("--keep", default=None, help="write the results directories and the cache here instead of a temporary folder")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise SystemExit(f"--modes: unknown mode(s) {', '.join(unknown)}; expected off, cold, warm")

    with tempfile.TemporaryDirectory(prefix="bench_compile_cache_") as tmp:
        root = Path(args.keep or tmp)
        got = {m: one(m, args, root / m, root / "compiled") for m in modes}
    print(f"backend {args.backend}, profile {args.profile}, seed {args.seed}, jobs {args.jobs}, specs {args.spec}")
    print(f"{'mode':6s} {'cases':>6s} {'build s':>8s} {'run s':>7s} {'wall s':>7s}")
    for m, g in got.items():
        print(f"{m:6s} {g['cases']:6d} {g['build']:8.1f} {g['run']:7.1f} {g['wall']:7.1f}")
    first = modes[0]
    for m in modes[1:]:
        b, a = got[first], got[m]
        print(f"\n{m}/{first}: build seconds {a['build'] / max(b['build'], 1e-9):.2f}, wall {a['wall'] / b['wall']:.2f}")
        differ = sorted((b["said"][c], a["said"][c]) for c in b["said"].keys() & a["said"].keys() if b["said"][c] != a["said"][c])
        print(f"results: {len(differ)} case(s) differ in verdict or message, "
              f"{len(b['said'].keys() ^ a['said'].keys())} case(s) in one run only")
        for (spec_id, before, said), (_, after, now) in differ[:40]:
            print(f"  {spec_id}: {before} -> {after}" + (f" ({said[:80]!r} -> {now[:80]!r})" if before == after else ""))


if __name__ == "__main__":
    main()
