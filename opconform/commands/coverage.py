"""`opconform coverage [--results DIR...] [--json] [--only OP...]`: the 188 standard ONNX operators
and what opconform has for each (spec versions, oracle, strategies, official node cases, backends run)."""
from __future__ import annotations

import argparse
import json
import sys

from opconform.reports import coverage
from opconform.suites.merge import ResultsError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", nargs="+", default=[], metavar="DIR", help="results directories (opconform run --out) for the backends column")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    parser.add_argument("--only", nargs="+", metavar="OP", help="only these operators")


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


def main(args: argparse.Namespace) -> int:
    try:
        rows = coverage.rows(args.results, only=args.only)
    except (ResultsError, ValueError) as e:
        print(f"opconform coverage: {e}", file=sys.stderr)
        return 2
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
