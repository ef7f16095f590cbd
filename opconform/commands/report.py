"""`opconform report DIR... --out OUT`: HTML report, JUnit XML and JSON summary of results directories."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from opconform.commands import mistakes
from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report
from opconform.suites.merge import ResultsError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="results directories (from `opconform run` or `opconform merge`)")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write index.html (the first view), details/*.html (one page per backend and spec version), junit.xml and summary.json")
    p.add_argument("--no-coverage", action="store_true", help="leave the operator coverage table out")


def main(args: argparse.Namespace) -> int:
    try:
        rs = ResultSet.load(args.results)
    except ResultsError as e:
        print(f"opconform report: {e}", file=sys.stderr)
        return 2
    for d in rs.dirs:  # a killed run's last line: left out, and said so (the page says it too)
        for line in d.torn_warnings():
            print(f"opconform report: warning: {line}", file=sys.stderr)
    mistakes.writable_dir(args.out)
    facts = _coverage_facts() if not args.no_coverage else None
    files = write_report(rs, args.out, with_coverage=not args.no_coverage, coverage_facts=facts)
    failed = sum(r.verdict.is_failure for r in rs.results)
    print(f"{len(rs.results)} results, {failed} failures, {len(rs.backends)} backend(s): {files['html']}")
    return 0


def _coverage_facts():
    """The oracle and generator facts of the coverage table (the report renders them, the command
    gathers them); None, said on stderr, when gathering them fails: the report renders without."""
    from opconform.commands.coverage import library_facts
    from opconform.reports.coverage import operators

    try:
        return library_facts(operators())
    except Exception as e:  # noqa: BLE001 -- the report must still render; its table then says unknown
        why = (str(e).splitlines() or [""])[0]
        print(f"opconform report: warning: coverage table without oracle, strategy and official cases "
              f"({type(e).__name__}: {why})", file=sys.stderr)
        return None


def write_or_say(results_dir: Path) -> int:
    """At the end of `opconform run`: the report of its results directory in DIR/report, and one
    line saying where (an absolute path to open). A report that fails to render costs the report
    only, never the run: its results are on disk already, so say so and how to retry (exit status 1)."""
    out = Path(results_dir) / "report"
    try:
        # without the coverage table: it checks every official ONNX node case, a minute of a smoke
        # run that takes seconds (`opconform report` includes it)
        files = write_report(ResultSet.load([results_dir]), out, with_coverage=False)
    except Exception as e:  # whatever broke in rendering, the run's results stand
        why = (str(e).splitlines() or [""])[0]
        retry = shlex.join(["opconform", "report", str(results_dir), "--out", str(out)])
        print(f"report: not written ({type(e).__name__}: {why}); the results are kept in {results_dir}; "
              f"retry with `{retry}`", file=sys.stderr)
        return 1
    print(f"report: {Path(files['html']).resolve()}")
    return 0
