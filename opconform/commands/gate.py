"""`opconform gate --baseline FILE RESULTS... [--strict]`: exit 0 (no regression), 1 (regressed), 2 (bad input)."""
from __future__ import annotations

import argparse
import sys

from opconform.reports import baseline, gate
from opconform.reports.resultset import ResultSet
from opconform.suites.merge import ResultsError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="results directories (from `opconform run` or `opconform merge`)")
    p.add_argument("--baseline", required=True, metavar="FILE", help="baseline YAML written by `opconform baseline`")
    p.add_argument("--strict", action="store_true", help="also fail when a known failure now passes (stale baseline entry)")


def main(args: argparse.Namespace) -> int:
    try:
        b = baseline.load(args.baseline)
        rs = ResultSet.load(args.results)
    except (ResultsError, baseline.BaselineError) as e:
        print(f"opconform gate: {e}", file=sys.stderr)
        return gate.BAD_INPUT
    findings = gate.compare(b, rs)
    for f in findings:
        print(f.line())
    for d in rs.dirs:
        if d.torn_line:
            print(f"WARNING    {d.path}: results.jsonl line {d.torn_line} was cut short by a killed run; left out")
        if d.run.get("shards_missing"):
            print(f"WARNING    {d.path}: shards missing from the merge: {', '.join(d.run['shards_missing'])}")
    code = gate.exit_code(findings, args.strict)
    count = {k: sum(f.kind == k for f in findings) for k in ("regression", "stale", "changed", "not-run")}
    verdict = "FAIL" if code else "OK"
    print(f"gate {verdict}: {len(rs.results)} results, {count['regression']} regressions, {count['stale']} stale"
          f"{' (strict)' if args.strict else ''}, {count['changed']} changed, {count['not-run']} not run")
    return code
