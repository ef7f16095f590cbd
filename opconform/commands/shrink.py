"""`opconform shrink DIR --backend NAME`: shrink each failure group of a results directory to a
minimal case (DIR/shrunk.jsonl, summary in DIR/shrunk.json); the report shows those first."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opconform.commands import mistakes


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results_dir", type=Path, metavar="DIR", help="results directory of `opconform run --out DIR`")
    p.add_argument("--backend", default=None, help="backend to shrink on (default: the run's, from DIR/run.json)")
    p.add_argument("--budget", type=mistakes.positive(float), default=None, metavar="S",
                   help="seconds of search and shrinking per failure group (default 30)")
    p.add_argument("--max-examples", type=mistakes.positive(int), default=None, metavar="N",
                   help="cases Hypothesis may try per failure group (default 200)")
    p.add_argument("--seed", type=int, default=None, help="search seed (default: the run's seed)")
    p.add_argument("--cap", dest="total_budget", type=mistakes.positive(float), default=None, metavar="S",
                   help="seconds for all failure groups together, biggest first; the rest are skipped (default: no cap)")


def print_group(g) -> None:
    """One line per failure group, as it finishes."""
    what = f"{g.backend} {g.spec_id} {g.verdict}" + (f" ({g.symptom})" if g.symptom else "")
    found = (f": case {g.case_id}, {g.size[0]} input dimensions, {g.size[1]} elements (smallest run case {g.shrunk_from})"
             if g.case_id else "")
    note = f"; {g.detail}" if g.detail else ""
    print(f"shrink {what}: {g.status}{found} after {g.examples} cases, {g.seconds:.1f} s{note}", file=sys.stderr)


def shrink_dir(results_dir: Path, backend: str | None, *, budget: float | None, max_examples: int | None = None,
               seed: int | None = None, total_budget: float | None = None) -> int:
    from opconform.suites import merge, shrink

    try:
        backend = backend or merge.read_dir(results_dir).run.get("backend")
        if not backend:
            print(f"opconform shrink: {results_dir}: run.json names no backend; expected --backend NAME", file=sys.stderr)
            return 2
        mistakes.writable_dir(results_dir, "DIR", must_exist=True)  # shrunk.jsonl and shrunk.json go there
        shrink.shrink(results_dir, backend, seed=seed, budget=budget or shrink.DEFAULT_BUDGET,
                      max_examples=max_examples or shrink.DEFAULT_MAX_EXAMPLES, total_budget=total_budget,
                      on_group=print_group)
    except merge.ResultsError as e:
        print(f"opconform shrink: {e}", file=sys.stderr)
        return 2
    return 0


def main(args: argparse.Namespace) -> int:
    return shrink_dir(args.results_dir, args.backend, budget=args.budget, max_examples=args.max_examples, seed=args.seed,
                      total_budget=args.total_budget)
