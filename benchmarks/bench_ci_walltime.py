"""Wall time of a whole ci run on a backend: today's ci against ci as it was before issue 11
(the code of commit --before, built into a temporary folder) and against today's code without
covering rows (profile `ci-norows`), in one run of this script, with empty caches.

    python benchmarks/bench_ci_walltime.py [--backend onnxruntime] [--seed 11] [--spec PATTERN]
                                           [--jobs N] [--before REV] [--no-before]

Issue 11's targets: the ci wall time grows by no more than 50%, and under 10% of ci's cases come
back "unsupported". "Grows" compares the ci profile before the issue (commit e35e0d7, the last
one before it: no covering rows, no probing) with today's, each a first run on this machine: no
case cache and no probe answers (a fresh temporary $OPCONFORM_CACHE for each run). ci-norows is
today's code drawing as before the issue: the cost of the rows and the probing alone, with the
speed-ups made since in the code both share.

Every run is a separate `opconform run` process, one after the other, so the figures are
comparable only within one run of this script on an otherwise idle machine. Printed per run:
wall time, cases, the share of cases the backend answered "unsupported", and (today's runs) the
probing, generation and execution times from run.json; then both ratios; then, for each run, the
pairs of factor values the backend answered for onnx::Unique-11, onnx::Cast-21 and
onnx::LayerNormalization-17 (counted by today's reports/factor_coverage.py from each run's results,
so "before" and "after" are counted the same way).
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

REPO = Path(__file__).resolve().parents[1]
BEFORE_ISSUE_11 = "e35e0d7"
FOCUS = ("onnx::Unique-11", "onnx::Cast-21", "onnx::LayerNormalization-17")


def build(rev: str, into: Path) -> Path:
    """The opconform package of commit `rev`, installed (without dependencies) into a folder for
    PYTHONPATH: it takes precedence over the editable install of today's code."""
    src, site = into / "src", into / "site"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(src)], check=True)
    return site


def one(label: str, profile: str, args: argparse.Namespace, tmp: Path, site: Path | None = None,
        extra: tuple[str, ...] = ()) -> dict:
    out, cache = tmp / label / "out", tmp / label / "cache"
    cmd = [sys.executable, "-m", "opconform", "run", "--backend", args.backend, "--profile", profile,
           "--seed", str(args.seed), "--jobs", str(args.jobs), "--out", str(out), "--no-case-cache", *extra]
    if args.spec:
        cmd += ["--spec", args.spec]
    env = {**os.environ, "OPCONFORM_CACHE": str(cache)}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    t0 = perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
    wall = perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{label}: `{' '.join(cmd)}` exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    run = json.loads((out / "run.json").read_text())
    verdicts = run.get("verdicts") or {}
    cases = sum(verdicts.values())
    probing = run.get("probing") or {}
    return {"wall": wall, "cases": cases, "unsupported": verdicts.get("unsupported", 0) / cases if cases else 0.0,
            "probes": probing.get("probes", 0), "pairs": focus_pairs(out)}


def focus_pairs(out: Path) -> dict[str, str]:
    """Spec id -> "exercised/total pairs" on the backend, for the FOCUS spec versions it ran."""
    from opconform.reports import factor_coverage
    from opconform.reports.resultset import ResultSet

    got = factor_coverage.coverage(ResultSet.load([out]))
    return {sid: f"{c.exercised}/{c.total}" for (_, sid), c in sorted(got.items()) if sid in FOCUS}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--spec", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--before", default=BEFORE_ISSUE_11, metavar="REV", help="the commit whose ci is 'before'")
    ap.add_argument("--no-before", action="store_true", help="only today's ci and ci-norows")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        figures = {}
        if not args.no_before:
            site = build(args.before, tmp / "before-code")
            figures[f"ci@{args.before}"] = one("before", "ci", args, tmp, site)
        figures["ci-norows"] = one("norows", "ci-norows", args, tmp, extra=("--no-report",))
        figures["ci"] = one("ci", "ci", args, tmp, extra=("--no-report",))
    for label, f in figures.items():
        probes = f" ({f['probes']} probe cases)" if f["probes"] else ""
        print(f"{label:14s} wall {f['wall']:6.1f} s{probes}; {f['cases']} cases, {f['unsupported']:.1%} unsupported")
    now = figures["ci"]["wall"]
    if not args.no_before:
        print(f"ci today / ci before issue 11 ({args.before}): {now / figures[f'ci@{args.before}']['wall']:.2f}x (target <= 1.50x)")
    print(f"ci / ci-norows (today's code, rows and probing alone): {now / figures['ci-norows']['wall']:.2f}x")
    for label, f in figures.items():
        print(f"{label:14s} pairs answered: " + "; ".join(f"{sid} {p}" for sid, p in f["pairs"].items()))


if __name__ == "__main__":
    main()
