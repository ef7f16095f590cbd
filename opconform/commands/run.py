"""`opconform run`: certify a backend (cases -> isolated workers -> verdicts -> DIR/results.jsonl)."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from opconform.suites import profiles


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"got {text!r}, expected a positive number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"got {text!r}, expected a positive number")
        return value
    return parse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", default=None,
                   help="reference (default; for --replay: the recorded backend), onnxruntime, openvino, openvino-native, tract, an entry point name, or package.module:Class")
    p.add_argument("--spec", dest="spec_pattern", default=None, help="glob(s) over spec ids, comma-separated (e.g. 'onnx::Gather*')")
    p.add_argument("--profile", choices=list(profiles.PROFILES), default="smoke", help="how many and how big (default smoke)")
    p.add_argument("--seed", type=int, default=0, help="generator seed (same seed, same cases)")
    p.add_argument("--jobs", type=_positive(int), default=os.cpu_count() or 1, help="worker processes (default: number of cores)")
    p.add_argument("--timeout", type=_positive(float), default=60.0, help="seconds per case before its worker is killed (default 60)")
    p.add_argument("--memory-limit", type=_positive(int), default=4096, metavar="MB",
                   help="resident memory per worker before it is killed (default 4096)")
    p.add_argument("--out", type=Path, help="results directory (results.jsonl, run.json)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out: finished cases are not redone")
    p.add_argument("--shard", default=None, help="K/N: run the K-th of N deterministic shares of the cases")
    p.add_argument("--cases-from", metavar="DIR", default=None,
                   help="run the cases recorded in another results directory instead of generating (same cases, another backend)")
    p.add_argument("--generation-timeout", type=_positive(float), default=300.0, metavar="S",
                   help="seconds to generate one spec version's cases before giving up on it (default 300)")
    p.add_argument("--no-case-cache", dest="case_cache", action="store_false",
                   help="generate every case afresh instead of reusing cases generated before with the same code")
    p.add_argument("--shrink", action="store_true", help="after the run, shrink each failure group to a minimal case (see `opconform shrink`)")
    p.add_argument("--shrink-budget", type=_positive(float), default=None, metavar="S", help="with --shrink: seconds per failure group (default 30)")
    p.add_argument("--replay", type=Path, metavar="DIR", help="replay one case from a results directory (with --case)")
    p.add_argument("--case", dest="case_id", help="case id to replay (with --replay)")


def _fail(message: str) -> int:
    print(f"opconform run: {message}", file=sys.stderr)
    return 2


def main(args: argparse.Namespace) -> int:
    from opconform.backends import BackendMissing
    from opconform.suites import plan, replay, results, runner
    from opconform.suites.pool import PoolError

    if args.replay or args.case_id:
        if not (args.replay and args.case_id):
            return _fail("--replay DIR and --case ID go together")
        try:
            return replay.replay(args.replay, args.case_id, args.backend, timeout=args.timeout,
                                 memory_limit_mb=args.memory_limit)
        except (BackendMissing, PoolError, KeyError, results.CorruptResults) as e:
            return _fail(str(e).strip("'\""))
    if args.out is None:
        return _fail("--out DIR is required")
    try:
        plan.parse_shard(args.shard)
    except ValueError as e:
        return _fail(str(e))
    config = runner.RunConfig(backend=args.backend or "reference", out=args.out, spec_pattern=args.spec_pattern,
                              cases_from=args.cases_from, profile=args.profile,
                              seed=args.seed, jobs=args.jobs, timeout=args.timeout, resume=args.resume, shard=args.shard,
                              memory_limit_mb=args.memory_limit, case_cache=args.case_cache,
                              generation_timeout=args.generation_timeout, command=shlex.join(["opconform", *sys.argv[1:]]))
    try:
        if args.resume and (args.out / results.RUN).exists():
            config = runner.resumed_config(config)
        from opconform.suites.progress import RichProgress

        summary = runner.run(config, RichProgress())
    except (BackendMissing, PoolError, FileExistsError, ValueError, results.CorruptResults) as e:
        return _fail(str(e))
    if args.shrink:
        from opconform.commands.shrink import shrink_dir

        return shrink_dir(args.out, config.backend, budget=args.shrink_budget)
    return 0
