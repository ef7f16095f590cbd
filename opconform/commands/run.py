"""`opconform run`: certify a backend (cases -> isolated workers -> verdicts -> DIR/results.jsonl)."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections import Counter
from pathlib import Path

from opconform.commands import mistakes
from opconform.suites import profiles


def add_arguments(p: argparse.ArgumentParser) -> None:
    # The settings that decide which cases exist default to None: with --resume, a flag left out
    # means "as recorded", and one given must agree with the record (RUN_DEFAULTS fill in the rest).
    p.add_argument("--backend", default=None,
                   help="reference (default; for --resume and --replay: the recorded backend), onnxruntime (onnxruntime[PROVIDER]: see --provider), "
                        "openvino, openvino-native, tract, tvm, iree, torch (torch[cuda] on a GPU), an entry point name, or package.module:Class")
    p.add_argument("--provider", default=None, metavar="NAME",
                   help="onnxruntime's execution provider (e.g. CUDAExecutionProvider): the backend becomes onnxruntime[NAME], "
                        "its name in results and reports (default CPUExecutionProvider, named plain onnxruntime)")
    p.add_argument("--spec", dest="spec_pattern", default=None, help="glob(s) over spec ids, comma-separated (e.g. 'onnx::Gather*'); each must match something")
    p.add_argument("--profile", choices=list(profiles.PROFILES), default=None, help="how many and how big (default smoke)")
    p.add_argument("--seed", type=int, default=None, help="generator seed (default 0; same seed, same cases)")
    p.add_argument("--jobs", type=mistakes.positive(int), default=os.cpu_count() or 1, help="worker processes (default: number of cores)")
    p.add_argument("--timeout", type=mistakes.positive(float), default=60.0, help="seconds per case before its worker is killed (default 60)")
    p.add_argument("--memory-limit", type=mistakes.positive(int), default=4096, metavar="MB",
                   help="resident memory per worker before it is killed (default 4096)")
    p.add_argument("--out", type=Path, help="results directory (results.jsonl, run.json, report/)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run recorded in --out: finished cases are not redone; --backend, --spec, --profile, --seed, "
                        "--shard and --cases-from default to the recorded ones and must agree with them when given")
    p.add_argument("--shard", default=None, help="K/N: run the K-th of N deterministic shares of the cases")
    p.add_argument("--cases-from", metavar="DIR", default=None,
                   help="run the cases recorded in another results directory, or written by `opconform generate` "
                        "(its manifest.json), instead of generating (same cases, another backend)")
    p.add_argument("--generation-timeout", type=mistakes.positive(float), default=300.0, metavar="S",
                   help="seconds to generate one spec version's cases before giving up on it (default 300)")
    p.add_argument("--no-probe", dest="probe", action="store_const", const=False, default=None,
                   help="do not ask the backend first which element types and attribute values it implements "
                        "(ci and certify do; their covering rows then leave the unsupported ones out)")
    p.add_argument("--no-case-cache", dest="case_cache", action="store_false",
                   help="generate every case afresh instead of reusing cases generated before with the same code")
    p.add_argument("--shrink", action="store_true", default=None,
                   help="after the run, shrink each failure group to a minimal case (see `opconform shrink`); certify does by default")
    p.add_argument("--no-shrink", dest="shrink", action="store_false", help="do not shrink the failure groups after a certify run")
    p.add_argument("--shrink-budget", type=mistakes.positive(float), default=None, metavar="S", help="seconds per failure group (default 30)")
    p.add_argument("--shrink-cap", type=mistakes.positive(float), default=None, metavar="S",
                   help=f"seconds for shrinking all failure groups together, biggest first (default {SHRINK_CAP:g})")
    p.add_argument("--no-report", dest="report", action="store_false",
                   help="do not write the HTML report to OUT/report at the end (`opconform report OUT --out OUT/report` writes it later)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where the cases run: local worker processes (default), or a Dask cluster (needs opconform[dask]; "
                        "a LocalCluster of --jobs workers unless --scheduler)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="with --executor dask: send the run to this Dask scheduler's cluster instead of a LocalCluster")
    p.add_argument("--replay", type=Path, metavar="DIR", help="replay one case from a results directory (with --case)")
    p.add_argument("--case", dest="case_id", help="case id to replay (with --replay)")


SHRINK_CAP = 600.0  # seconds: the default total time for shrinking a run's failure groups
SHRINKS_BY_DEFAULT = ("certify",)  # profiles whose run ends with shrinking its failure groups


# what a new run uses for the settings not given (RunConfig's own defaults cover the rest)
RUN_DEFAULTS = {"backend": "reference"}


def _config(args: argparse.Namespace):
    """The RunConfig of this command line: a new run, or (--resume) the recorded one, refusing
    a stated setting that contradicts the record."""
    from opconform.suites import runner

    given = {k: v for k in runner.RunConfig.FIXED if (v := getattr(args, k)) is not None}
    config = runner.RunConfig(**{**RUN_DEFAULTS, **given}, out=args.out, jobs=args.jobs, timeout=args.timeout,
                              memory_limit_mb=args.memory_limit, case_cache=args.case_cache,
                              generation_timeout=args.generation_timeout, command=shlex.join(["opconform", *sys.argv[1:]]),
                              executor=args.executor, scheduler=args.scheduler)
    return runner.resumed_config(config, given) if args.resume else config


def main(args: argparse.Namespace) -> int:
    from opconform.backends import BackendMissing, with_option
    from opconform.suites import plan, progress, replay, runner
    from opconform.suites.pool import PoolError

    # what the stages raise about their input (ValueError covers CorruptResults); KeyError only from
    # replay (no such case), where elsewhere it would be a bug to show with its traceback
    from opconform.suites.dask_pool import DaskUnavailable

    refused = (BackendMissing, PoolError, DaskUnavailable, FileExistsError, ValueError)
    if args.provider:
        if not args.backend:
            raise mistakes.Mistake("--provider goes with --backend onnxruntime (the backend it selects a provider of)")
        try:
            args.backend = with_option(args.backend, args.provider)
        except BackendMissing as e:
            raise mistakes.Mistake(str(e)) from None
    if args.replay or args.case_id:
        if not (args.replay and args.case_id):
            raise mistakes.Mistake("--replay DIR and --case ID go together")
        try:
            return replay.replay(args.replay, args.case_id, args.backend, timeout=args.timeout,
                                 memory_limit_mb=args.memory_limit)
        except (*refused, KeyError) as e:
            raise mistakes.Mistake(_text(e)) from None
    if args.out is None:
        raise mistakes.Mistake("--out DIR is required")
    if args.scheduler and args.executor != "dask":
        raise mistakes.Mistake(f"--scheduler {args.scheduler}: goes with --executor dask (a Dask scheduler's address)")
    try:
        plan.parse_shard(args.shard)
        config = _config(args)
        if config.cases_from:  # before --out is made: a wrong directory leaves nothing behind
            plan.cases_dir_kind(Path(config.cases_from), "--cases-from")
        mistakes.writable_dir(args.out)
        if profiles.get(config.profile).ladder:  # --profile stress: ladders of sizes, timed
            from opconform.suites import stress

            summary = stress.run(config, progress.for_stderr())
        else:
            summary = runner.run(config, progress.for_stderr())
    except refused as e:
        raise mistakes.Mistake(_text(e)) from None
    status = 0
    if args.shrink or (args.shrink is None and config.profile in SHRINKS_BY_DEFAULT):
        from opconform.commands.shrink import shrink_dir

        status = shrink_dir(args.out, config.backend, budget=args.shrink_budget, total_budget=args.shrink_cap or SHRINK_CAP)
    if args.report:
        from opconform.commands.report import write_or_say

        status = max(status, write_or_say(args.out))
    else:
        print(f"results: {args.out.resolve()} (report: `opconform report {args.out} --out {args.out / 'report'}`)")
    for line in closing_lines(summary.totals):
        print(line)
    if summary.totals.get("harness-error"):
        status = max(status, 1)  # opconform failed on some cases: the run is not a full answer
    return status


def _text(e: Exception) -> str:
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)  # str(KeyError) adds quotes


def closing_lines(totals: Counter) -> list[str]:
    """The verdict counts, and how to read them: a newcomer's first run shows failures, and they
    are findings about the backend, not an error of opconform."""
    from opconform.model import Verdict

    failures = sum(n for v, n in totals.items() if Verdict(v).is_failure)
    counts = ", ".join(f"{v.value} {totals[v.value]}" for v in Verdict if totals.get(v.value))
    reading = (f"{failures} failure(s): the backend's answers that disagree with the spec, not a broken install"
               if failures else "no failures: every answer of the backend agrees with the spec")
    lines = [f"verdicts: {counts} ({sum(totals.values())} cases)" if counts else "verdicts: no cases",
             f"{reading}; unsupported (not implemented by the backend) is not a failure"]
    if totals.get("harness-error"):
        lines.append(f"{totals['harness-error']} harness-error(s): opconform itself failed on these cases (a bug in "
                     "opconform, not in the backend; each result line says where); exit status 1")
    return lines
