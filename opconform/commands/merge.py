"""`opconform merge DIR... --out DIR`: join the shards of one run into one results directory."""
from __future__ import annotations

import argparse
import sys

from opconform.commands import mistakes
from opconform.suites.merge import ResultsError, merge


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="shard results directories (`opconform run --shard K/N --out DIR`)")
    p.add_argument("--out", required=True, metavar="DIR", help="merged results directory to write")


def main(args: argparse.Namespace) -> int:
    mistakes.writable_dir(args.out)
    try:
        merged = merge(args.results, args.out)
    except ResultsError as e:
        print(f"opconform merge: {e}", file=sys.stderr)
        return 2
    missing = merged.run.get("shards_missing") or []
    note = f"; shards missing: {', '.join(missing)}" if missing else ""
    print(f"{merged.path}: {len(merged.results)} results from {len(args.results)} director(y/ies){note}")
    return 0
