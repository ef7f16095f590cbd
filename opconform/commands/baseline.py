"""`opconform baseline RESULTS... --out FILE`: write the reviewed-baseline YAML that the gate reads."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opconform.commands import mistakes
from opconform.reports import baseline
from opconform.reports.resultset import ResultSet
from opconform.suites.merge import ResultsError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="results directories (from `opconform run` or `opconform merge`)")
    p.add_argument("--out", required=True, metavar="FILE", help="baseline YAML to write; reasons already in it are kept")


def main(args: argparse.Namespace) -> int:
    mistakes.writable_file(args.out)
    try:
        rs = ResultSet.load(args.results)
        previous = baseline.load(args.out) if Path(args.out).exists() else None
    except (ResultsError, baseline.BaselineError) as e:
        print(f"opconform baseline: {e}", file=sys.stderr)
        return 2
    b = baseline.from_results(rs, previous)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    baseline.write(b, args.out)
    known = sum(len(e.failing) for bk in b.backends.values() for e in bk.specs.values())
    unreasoned = sum(not k.reason for bk in b.backends.values() for e in bk.specs.values() for k in e.failing.values())
    print(f"{args.out}: {len(b.backends)} backend(s), {known} known failures ({unreasoned} without a reason yet)")
    return 0
