"""`opconform report DIR... --out OUT`: HTML report, JUnit XML and JSON summary of results directories."""
from __future__ import annotations

import argparse
import sys

from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report
from opconform.suites.merge import ResultsError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="results directories (from `opconform run` or `opconform merge`)")
    p.add_argument("--out", required=True, metavar="DIR", help="where to write index.html, junit.xml and summary.json")
    p.add_argument("--no-coverage", action="store_true", help="leave the operator coverage table out")


def main(args: argparse.Namespace) -> int:
    try:
        rs = ResultSet.load(args.results)
    except ResultsError as e:
        print(f"opconform report: {e}", file=sys.stderr)
        return 2
    files = write_report(rs, args.out, with_coverage=not args.no_coverage)
    failed = sum(r.verdict.is_failure for r in rs.results)
    print(f"{len(rs.results)} results, {failed} failures, {len(rs.backends)} backend(s): {files['html']}")
    return 0
