"""`opconform validate`: check every spec file and evaluate its examples with the oracle.

Exit status: 0 all good; 1 an example fails or an oracle does not import; 2 a spec file is
malformed (one line per file, naming the field and what was expected)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from opconform.commands import mistakes
from opconform.oracle.validation import LibraryReport, validate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", metavar="PATTERN", default=None,
                        help="only these specs: comma-separated globs over ids or dialect::Operator, e.g. 'onnx::Unique*'")
    parser.add_argument("--spec-dir", metavar="DIR", default=None,
                        help="validate the spec files DIR/<dialect>/<Operator>.yaml instead of the installed library")
    parser.add_argument("--failures-only", action="store_true", help="list only spec versions that fail")


def main(args: argparse.Namespace) -> int:
    if args.spec_dir is not None and not Path(args.spec_dir).is_dir():
        raise mistakes.Mistake(f"--spec-dir {args.spec_dir}: no such directory; expected spec files laid out as DIR/<dialect>/<Operator>.yaml")
    mistakes.spec_pattern(args.spec, None if args.spec_dir is None else sorted(Path(args.spec_dir).glob("*/*.yaml")))
    report = validate(args.spec, args.spec_dir)
    out = Console(width=None if sys.stdout.isatty() else 120)  # a log file gets full spec ids
    if not report.versions and not report.malformed:
        where = f" in {args.spec_dir}" if args.spec_dir else ""
        print(f"opconform validate: no spec file{where} matches {args.spec or '*'!r}", file=sys.stderr)
        return 2
    render(report, out, failures_only=args.failures_only)
    for line in report.malformed:
        print(f"malformed spec: {line}", file=sys.stderr)
    if report.malformed:
        return 2
    return 1 if report.failed else 0


def render(report: LibraryReport, out: Console, *, failures_only: bool = False) -> None:
    table = Table(title="opconform spec library", show_lines=False)
    for col, justify in (("spec", "left"), ("examples", "right"), ("relations", "right"),
                         ("policies", "left"), ("errata", "right"), ("oracle", "left")):
        table.add_column(col, justify=justify, no_wrap=col == "spec")
    rows = [v for v in report.versions if not (failures_only and v.ok)]
    for v in rows:
        s = v.spec
        if v.oracle == "yes":
            ex = f"{v.passed}/{len(v.examples)}"
            ex = f"[green]{ex}[/]" if v.ok else f"[red]{ex}[/]"
        else:
            ex = f"-/{len(s.examples)}"
        oracle = {"yes": "yes", "missing": "[yellow]missing[/]"}.get(v.oracle, "[red]broken[/]")
        table.add_row(s.id, ex, str(len(v.written_relations)), ", ".join(p.name for p in s.policies) or "-",
                      str(len(s.errata)), oracle)
    if rows:
        out.print(table)
    for v in report.failed:
        if v.oracle not in ("yes", "missing"):
            out.print(f"[red]FAIL[/] {v.spec.id}: oracle {v.oracle}", markup=True, highlight=False)
        for r in v.examples:
            if not r.passed:
                out.print(f"[red]FAIL[/] {r.spec_id} example {r.example}: {r.message}", highlight=False)
    examples = sum(len(v.examples) for v in report.versions)
    passed = sum(v.passed for v in report.versions)
    missing = sum(v.oracle == "missing" for v in report.versions)
    out.print(f"{len(report.versions)} spec versions, {passed}/{examples} examples reproduced by the oracle, "
              f"{missing} without an oracle, {len(report.malformed)} malformed file(s)", highlight=False)
