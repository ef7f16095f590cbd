"""Where a worker's time goes: the harness's share (everything but the backend's build and run
calls) and, under cProfile, the functions that make it up.

    python benchmarks/bench_harness.py [--spec 'onnx::[A-C]*'] [--profile ci] [--backend onnxruntime]
                                       [--cases-from DIR] [--cprofile] [--top 25]

The cases run in this process, one after the other, through the worker's own per-case code
(suites/worker.judge_case) in signature-group order, as a pool worker runs them (the harness
time includes encoding the result line, measured after it is encoded): the figures are
a worker's, free of the pool's messages and of other workers competing for the cores. Cases come
from the case cache (generated first where it is cold, not timed) or, with --cases-from, from an
earlier results directory (the same cases whatever the code's version: before/after comparisons).

Target (issue 18): the harness share of worker time below 25% on the ci profile on onnxruntime.
With --cprofile the run is profiled (slower: read the shares from the run without it) and the
functions with the most time of their own are printed, the backend's marked as such.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
from pathlib import Path
from time import perf_counter

# the runtimes' own code, as opposed to opconform's (for the profile's listing)
RUNTIMES = ("onnxruntime", "openvino", "tract")


def load(spec: str, profile: str, seed: int, cases_from: str | None) -> tuple[list, dict]:
    """[(spec id, case, encoded, group key)] in signature-group order, and the SpecVersions by id
    (the group key computed here, as the runner's parent computes it and sends it to the worker)."""
    from opconform import specs
    from opconform.suites import case_cache, plan

    ids = [v.id for v in specs.select(spec)]
    if cases_from:
        planned = plan.from_cases_dir(Path(cases_from), ids)
    else:
        planned = plan.collect(ids, profile, seed, 2, None, case_cache.code_key(), 300.0)
    encoded = {id(c): e for sc in planned if sc.encoded for c, e in zip(sc.cases, sc.encoded)}
    items = [(sc.spec_id, c) for sc in planned for c in sc.cases]
    ordered = [(sid, c, encoded.get(id(c)), key) for key, group in plan.group(items) for sid, c in group]
    return ordered, {sid: specs.load(sid) for sid in ids}


def run_all(backend, items: list, known: dict) -> tuple[float, float, float, float]:
    """Wall seconds, and the sums of per-case harness, backend and build seconds."""
    from opconform.suites import worker

    harness = run = build = 0.0
    gc.disable()  # as in a worker: collected between cases, in the backend's phase
    gc.freeze()  # as a worker freezes its start-up state (here the loaded cases too: a worker holds a batch)
    t0 = perf_counter()
    for sid, case, pre, key in items:
        for message in worker.judge_case(backend, known, sid, case, pre, None, key):
            if message[0] == "result":
                j = message[1]
                harness, run, build = harness + j.harness_seconds, run + j.backend_seconds, build + j.build_seconds
    wall = perf_counter() - t0
    gc.enable()
    return wall, harness, run, build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="onnxruntime")
    ap.add_argument("--spec", default="onnx::[A-C]*")
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases-from", default=None, help="the cases of an earlier results directory")
    ap.add_argument("--cprofile", action="store_true", help="profile the run and list where the time goes")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()

    from opconform import backends

    items, known = load(args.spec, args.profile, args.seed, args.cases_from)
    backend = backends.get(args.backend)
    backend.warm_up()
    profiler = cProfile.Profile() if args.cprofile else None
    if profiler:
        profiler.enable()
    wall, harness, run, build = run_all(backend, items, known)
    if profiler:
        profiler.disable()
    worker_time = harness + run + build
    print(f"backend {args.backend}, specs {args.spec}, {len(items)} cases"
          f"{' from ' + args.cases_from if args.cases_from else f', profile {args.profile}, seed {args.seed}'}"
          f"{' (profiled: times inflated)' if profiler else ''}")
    print(f"wall {wall:.2f} s, {len(items) / wall:.0f} cases/s; models built {backend.models_built}")
    print(f"worker time {worker_time:.2f} s: backend run {run:.2f} s, build {build:.2f} s, harness {harness:.2f} s")
    print(f"harness share of worker time {harness / worker_time:.1%} (target < 25%); "
          f"per case {harness / len(items) * 1e3:.3f} ms harness, {(run + build) / len(items) * 1e3:.3f} ms backend")
    # whatever the code's version counts as harness: all of the loop's time but the backend's
    print(f"everything but the backend's build and run, over the wall: {(wall - run - build) / wall:.1%}")
    if profiler:
        stats = pstats.Stats(profiler)
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[: args.top]  # by time of its own
        total = sum(v[2] for v in stats.stats.values())
        print(f"\n{'own s':>7} {'share':>6} {'calls':>8}  function (B: the backend's code)")
        for (path, line, name), (_, calls, own, _, _) in rows:
            mark = "B" if any(f"site-packages/{r}" in path or name.startswith(f"<built-in method {r}") for r in RUNTIMES) else " "
            where = path.split("site-packages/")[-1] if "site-packages" in path else "/".join(path.split("/")[-2:])
            print(f"{own:7.2f} {own / total:6.1%} {calls:8d} {mark} {where}:{line}({name})")


if __name__ == "__main__":
    main()
