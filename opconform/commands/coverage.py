"""`opconform coverage [--results DIR...] [--json] [--only OP...]`: every standard ONNX operator
and what opconform has for each (spec versions, oracle, strategies, official node cases, backends run).

`opconform coverage --spec PATTERN [--profile P] [--seed S]`: the generator's factor coverage
instead: per spec version, its factors, covering rows, rows no case could hold (with the reason),
and the pairs (certify: and triples) of factor values the cases a run would plan exercise.

The reports render (opconform.reports.coverage, plan_coverage); what needs the oracle or the
generator is done here, the composition root: library_facts asks the oracle and the generator and
runs the official ONNX node cases through the oracle; planned() plans cases as a run would."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Callable, Iterable

from opconform.reports import coverage
from opconform.suites.merge import ResultsError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", nargs="+", default=[], metavar="DIR", help="results directories (opconform run --out) for the backends column")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    parser.add_argument("--only", nargs="+", metavar="OP", help="only these operators")
    parser.add_argument("--spec", metavar="PATTERN", default=None,
                        help="factor coverage of the generator for these spec versions (comma-separated globs) instead of the operator table")
    parser.add_argument("--profile", default="ci", help="with --spec: the run profile to plan under (default ci: pairs; certify: triples)")
    parser.add_argument("--seed", type=int, default=0, help="with --spec: the run seed (default 0, as opconform run)")
    parser.add_argument("--jobs", type=int, default=None, help="with --spec: generating processes (default: number of cores)")
    parser.add_argument("--missing", type=int, default=0, metavar="N", help="with --spec: also print up to N tuples not exercised per spec version")


def library_facts(operators: Iterable[str]) -> dict[str, coverage.OperatorFacts]:
    """Per ONNX operator, what the oracle and the generator have for its spec versions, and how
    many official ONNX node cases the oracle reproduces (run only where every version has an
    oracle: the cases of an operator without one are counted, not run)."""
    from opconform import oracle, specs
    from opconform.generator import has_strategy
    from opconform.model import SpecError
    from opconform.oracle import official

    from opconform.specs.catalog import split_key

    out = {}
    for op in operators:
        dialect, name = split_key(op)  # an ai.onnx.ml operator is onnx_ml::Name
        try:
            versions = list(specs.load_spec(dialect, name).versions)
        except (KeyError, SpecError):  # the row says which (reports.coverage.row)
            versions = []
        with_oracle = bool(versions) and all(oracle.has_oracle(v) for v in versions)
        if with_oracle:
            results = official.check_operator(name, dialect)
            passed, total = sum(r.passed for r in results), len(results)
        else:
            passed, total = 0, len(official.cases_for(name, dialect))
        strategy = all(has_strategy(v) for v in versions) if versions else None
        out[op] = coverage.OperatorFacts(with_oracle, strategy, passed, total)
    return out


def planned(pattern: str, profile: str, seed: int, *, jobs: int | None = None, use_cache: bool = True,
            on_spec: Callable | None = None) -> list:
    """Plan every spec version matching `pattern` under `profile`, as `opconform run` would (its
    case cache included, no backend), and count what each exercises (reports.plan_coverage)."""
    from opconform.reports import plan_coverage
    from opconform.suites import case_cache, plan, profiles

    prof = profiles.get(profile)
    versions, _ = plan.select(pattern)
    out: list[plan_coverage.PlannedCoverage] = []

    def done(sc: plan.SpecCases) -> None:
        item = plan_coverage.of_planned(sc, prof.t)
        out.append(item)
        on_spec and on_spec(item)

    plan.collect([v.id for v in versions], profile, seed, jobs or os.cpu_count() or 1, done,
                 case_cache.code_key() if use_cache else None)
    order = {v.id: i for i, v in enumerate(versions)}
    return sorted(out, key=lambda p: order[p.spec_id])


def _mark(v: bool | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}[v]


def _table(rows: list[coverage.CoverageRow]):
    from rich.table import Table

    t = Table(title="ONNX standard operators: opconform coverage")
    for col in ("operator", "spec versions", "oracle", "strategy", "official", "backends", "complete", "missing"):
        t.add_column(col)
    for r in rows:
        t.add_row(
            r.operator,
            " ".join(map(str, r.versions)) or "-",
            _mark(r.has_oracle),
            _mark(r.has_strategy) if r.versions else "-",
            f"{r.official_passed}/{r.official_total}",
            ", ".join(r.backends) or "-",
            "[green]yes[/green]" if r.complete else "no",
            "; ".join(r.missing),
        )
    return t


def _print_planned(args: argparse.Namespace) -> int:
    from opconform.commands import mistakes
    from opconform.reports import plan_coverage
    from opconform.suites import profiles

    mistakes.spec_pattern(args.spec)
    try:
        profiles.get(args.profile)
    except ValueError as e:
        raise mistakes.Mistake(f"--profile: {e}") from None

    def line(p: plan_coverage.PlannedCoverage) -> None:
        if args.json:
            return
        if p.error:
            print(f"{p.spec_id}: not planned: {p.error}", flush=True)
            return
        tuples = "; ".join(f"{'pairs' if s.t == 2 else 'triples'} {s.exercised}/{s.total} ({100 * s.fraction:.1f}%)"
                           for s in p.strengths)
        print(f"{p.spec_id}: {len(p.factors)} factors, {p.rows} rows, {len(p.infeasible)} infeasible, "
              f"{p.cases} valid cases; {tuples}", flush=True)
        for f in p.factors:
            print(f"    factor {f}")
        for row, why in p.infeasible:
            print(f"    row {row} infeasible: {why}")
        for s in p.strengths:
            for m in s.missing[:args.missing]:
                print(f"    {'pair' if s.t == 2 else 'triple'} not exercised: {m}")

    items = planned(args.spec, args.profile, args.seed, jobs=args.jobs)
    for p in items:
        line(p)
    sums = plan_coverage.totals(items)
    if args.json:
        print(json.dumps({"profile": args.profile, "seed": args.seed, "specs": [p.to_json() for p in items],
                          "totals": {str(t): {"exercised": e, "total": n} for t, (e, n) in sums.items()}}, indent=1))
    else:
        errors = sum(1 for p in items if p.error)
        parts = [f"{'pairs' if t == 2 else 'triples'} {e}/{n} ({100 * e / n if n else 100:.1f}%)" for t, (e, n) in sorted(sums.items())]
        print(f"{len(items)} spec version(s), profile {args.profile}, seed {args.seed}: {'; '.join(parts)}"
              f"{f'; {errors} not planned' if errors else ''}")
    return 1 if any(p.error for p in items) else 0


def main(args: argparse.Namespace) -> int:
    if args.spec is not None:
        return _print_planned(args)
    try:
        operators = coverage.picked(args.only)
        backends = coverage.backends_by_operator(args.results)  # a bad directory is said before the slow part
    except (ResultsError, ValueError) as e:
        print(f"opconform coverage: {e}", file=sys.stderr)
        return 2
    facts = library_facts(operators)
    rows = [coverage.row(op, backends.get(op, ()), facts[op]) for op in operators]
    total = f"{coverage.complete_count(rows)} of {len(rows)} operators complete"
    if args.json:
        print(json.dumps({"rows": [r.to_json() for r in rows], "complete": coverage.complete_count(rows), "total": len(rows)}, indent=1))
        return 0
    from rich.console import Console

    # piped output (CI logs) gets a wide table instead of rich's 80-column default
    console = Console(width=None if sys.stdout.isatty() else 160)
    console.print(_table(rows))
    console.print(total)
    return 0
