"""The ci profile's case mix per spec version, today's code against a commit's: what a removed
generator hook must keep (issue 12: "every removed hook keeps its draws' coverage").

    python benchmarks/bench_case_mix.py --spec 'onnx::GroupNormalization-*' [--before REV] [--seed 11]

For each matching spec version and each side (the code of commit --before, built into a temporary
folder as benchmarks/bench_ci_walltime.py does, and today's), the ci plan's cases are drawn (no
case cache, no probing: the generator alone) and summarised: valid and must-refuse cases, the
relations the must-refuse cases break, rows no case could hold, pairs of factor values exercised,
and per input the element types, ranks and distinct shapes, per attribute the distinct values.
A line is marked `<<` where today's mix is narrower than before.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ci_walltime import build  # noqa: E402  (the same way of building an older commit)

_MIX = r'''
import json, sys
from opconform import specs
from opconform.suites import plan
out = {}
for s in specs.select(sys.argv[1]):
    sc = plan.cases_for(s.id, "ci", int(sys.argv[2]))
    if sc.error:
        out[s.id] = {"error": sc.error}
        continue
    valid = [c for c in sc.cases if c.expected.kind != "error" and not c.label.startswith("breaks:")]
    bad = [c for c in sc.cases if c.expected.kind == "error" or c.label.startswith("breaks:")]
    mix = {"valid": len(valid), "must-refuse": len(bad), "infeasible rows": len(sc.infeasible),
           "pairs": next((f"{c['exercised']}/{c['total']}" for c in sc.coverage if c["t"] == 2), "-"),
           "relations broken": sorted({c.label.split(";")[0][len("breaks:"):] for c in bad if c.label.startswith("breaks:")})}
    for i, p in enumerate(s.inputs):
        xs = [c.inputs[i] for c in valid if i < len(c.inputs) and c.inputs[i] is not None]
        mix[f"input {p.name}: types"] = sorted({str(x.dtype) for x in xs})
        mix[f"input {p.name}: ranks"] = sorted({x.ndim for x in xs})
        mix[f"input {p.name}: shapes"] = len({x.shape for x in xs})
        mix[f"input {p.name}: given"] = len(xs)
    for a in s.attributes:
        vals = {json.dumps(c.attributes[a.name], default=str) for c in valid if a.name in c.attributes}
        mix[f"attribute {a.name}: values"] = len(vals)
    out[s.id] = mix
print(json.dumps(out))
'''


def mix(spec: str, seed: int, site: Path | None, cache: Path) -> dict:
    env = {**os.environ, "OPCONFORM_CACHE": str(cache)}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    # run from the cache folder: from the repository, `-c` would import today's code from the cwd
    proc = subprocess.run([sys.executable, "-c", _MIX, spec, str(seed)], env=env, cwd=cache.parent, capture_output=True,
                          text=True)
    if proc.returncode:
        raise SystemExit(f"case mix of {spec}: {proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _narrower(before, now) -> bool:
    if isinstance(before, int) and isinstance(now, int):
        return now < before
    if isinstance(before, list) and isinstance(now, list):
        return not set(map(str, before)) <= set(map(str, now))
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--before", default="HEAD", metavar="REV", help="the commit to compare with (default HEAD)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        before = mix(args.spec, args.seed, build(args.before, tmp / "before"), tmp / "c1")
        now = mix(args.spec, args.seed, None, tmp / "c2")
    for sid in sorted(set(before) | set(now)):
        print(sid)
        b, n = before.get(sid, {}), now.get(sid, {})
        for key in dict.fromkeys(list(b) + list(n)):
            mark = "  <<" if _narrower(b.get(key), n.get(key)) else ""
            if isinstance(b.get(key), list) and isinstance(n.get(key), list) and b.get(key) != n.get(key):
                gone, new = sorted(set(map(str, b[key])) - set(map(str, n[key]))), sorted(set(map(str, n[key])) - set(map(str, b[key])))
                print(f"  {key:34s} lost {gone}, gained {new}{mark}")
            else:
                print(f"  {key:34s} {json.dumps(b.get(key))[:60]:60s} -> {json.dumps(n.get(key))[:60]}{mark}")


if __name__ == "__main__":
    main()
