"""Time spent building models on an OpenVINO backend, with and without reusing compiled models
across input shapes (issue 18: "OpenVINO's ci run spends at most half as long building models").

    python benchmarks/bench_openvino_builds.py [--backend openvino] [--spec PATTERN] [--profile ci]
                                               [--seed 0] [--jobs 2] [--modes before,after,warm]

Each mode is one `opconform run` of the same cases (same spec pattern, profile and seed, no probe),
one after the other in this script's run, so all share the machine's load: "before" with
OPCONFORM_OPENVINO_REUSE=0 (every model the CPU plugin refuses dynamic compiled per whole input
shape, each signature trying the dynamic model first, no compiled-model cache), "after" with the
reuse on (backends/openvino_common.FewerCompiles) and OpenVINO's compiled-model cache empty at
the start, "warm" the same again on the cache "after" filled (a second run of the same cases).
Printed per mode, from the results' recorded times: cases, builds (cases that paid for at least
one compile or cache import), build seconds, run seconds and wall time; then each mode's ratios
to "before" and every case whose verdict differs from its verdict before.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from time import perf_counter

# the operators whose models cost OpenVINO the most build time in a ci run (casts, per-shape
# compiles: one-hot, reshapes, squeezes, top-k, tiles) and common ones that compile dynamic
SUBSET = ("onnx::Cast-23,onnx::CastLike-23,onnx::OneHot-11,onnx::Reshape-21,onnx::Squeeze-21,onnx::Unsqueeze-21,"
          "onnx::EyeLike-22,onnx::QuantizeLinear-25,onnx::Compress-11,onnx::Tile-13,onnx::Expand-13,"
          "onnx::ArgMax-13,onnx::Abs-13,onnx::Add-14,onnx::Gather-13,onnx::Slice-13,onnx::Concat-13,"
          "onnx::ReduceSum-13,onnx::Transpose-21,onnx::MatMul-13,onnx::TopK-11,onnx::Pad-21,onnx::GatherND-13,"
          "onnx::Resize-19")
MODES = {"before": "0", "after": "1", "warm": "1"}  # OPCONFORM_OPENVINO_REUSE per mode


def one(mode: str, args: argparse.Namespace, out: Path) -> dict:
    cmd = [sys.executable, "-m", "opconform", "run", "--backend", args.backend, "--profile", args.profile,
           "--seed", str(args.seed), "--jobs", str(args.jobs), "--spec", args.spec, "--no-probe",
           "--out", str(out), "--no-report"]
    # after and warm share a compiled-model cache that starts empty: warm is the second run on it
    env = {**os.environ, "OPCONFORM_OPENVINO_REUSE": MODES[mode], "OPCONFORM_OPENVINO_CACHE": str(out.parent / "models")}
    t0 = perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = perf_counter() - t0
    if not (out / "results.jsonl").exists():
        raise SystemExit(f"{mode}: opconform run wrote no results (exit {proc.returncode}): {proc.stderr[-500:]}")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {"wall": wall, "cases": len(rows),
            "builds": sum((r.get("build_seconds") or 0) > 0 for r in rows),
            "build": sum(r.get("build_seconds") or 0 for r in rows),
            "run": sum(r.get("backend_seconds") or 0 for r in rows),
            "compiled": Counter(r["extra"].get("compiled") for r in rows if r["extra"].get("compiled")),
            "verdicts": {r["case_id"]: (r["spec_id"], r["verdict"]) for r in rows}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="openvino")
    ap.add_argument("--spec", default=SUBSET)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", default="before,after,warm", help="which, in this order (before, after, warm)")
    ap.add_argument("--keep", default=None, help="write the results directories here instead of a temporary folder")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise SystemExit(f"--modes: unknown mode(s) {', '.join(unknown)}; expected before, after, warm")

    with tempfile.TemporaryDirectory(prefix="bench_openvino_builds_") as tmp:
        root = Path(args.keep or tmp)
        got = {m: one(m, args, root / m) for m in modes}
    print(f"backend {args.backend}, profile {args.profile}, seed {args.seed}, jobs {args.jobs}, specs {args.spec}")
    print(f"{'mode':8s} {'cases':>6s} {'builds':>7s} {'build s':>8s} {'run s':>7s} {'wall s':>7s}  compiled")
    for m, g in got.items():
        print(f"{m:8s} {g['cases']:6d} {g['builds']:7d} {g['build']:8.1f} {g['run']:7.1f} {g['wall']:7.1f}  {dict(g['compiled'])}")
    for m in [m for m in ("after", "warm") if m in got and "before" in got]:
        b, a = got["before"], got[m]
        print(f"\n{m}/before: builds {a['builds'] / max(b['builds'], 1):.2f}, build seconds {a['build'] / max(b['build'], 1e-9):.2f} "
              f"(target <= 0.5), wall {a['wall'] / b['wall']:.2f}")
        differ = sorted((b["verdicts"][c][0], c, b["verdicts"][c][1], a["verdicts"][c][1])
                        for c in b["verdicts"].keys() & a["verdicts"].keys() if b["verdicts"][c][1] != a["verdicts"][c][1])
        missing = len(b["verdicts"].keys() ^ a["verdicts"].keys())
        print(f"verdicts: {len(differ)} case(s) differ, {missing} case(s) in one run only")
        for spec_id, case_id, before, after in differ:
            print(f"  {spec_id} {case_id}: {before} -> {after}")


if __name__ == "__main__":
    main()
