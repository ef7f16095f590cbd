"""`opconform generate`: draw cases from specs and write them as test-data files.

ONNX specs go to the ONNX backend-test layout, OpenVINO specs to OpenVINO IR, every case to
manifest.json (expected errors, alternatives, policies, seed, id). The generation and writing
live in opconform.generator.export; this module wires in the oracle's expectation."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opconform import specs
from opconform.generator import PROFILES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", metavar="PATTERN", required=True,
                        help="spec versions: comma-separated globs over ids or dialect::Operator, e.g. 'onnx::Unique*'")
    parser.add_argument("--count", type=int, default=20, metavar="N", help="cases per spec version (default 20)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed: the same seed writes the same files (default 0)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory (created)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="smoke", help="tensor sizes (default smoke)")


def main(args: argparse.Namespace) -> int:
    from opconform import oracle
    from opconform.commands import mistakes
    from opconform.generator.export import export
    from opconform.model import SpecError

    if args.count < 1:
        print(f"opconform generate: --count must be at least 1, got {args.count}", file=sys.stderr)
        return 2
    try:
        versions = specs.select(args.spec)
    except SpecError as e:  # a spec file the pattern names does not load: its one line
        raise mistakes.Mistake(str(e)) from None
    if not versions:
        print(f"opconform generate: no spec version matches {args.spec!r}", file=sys.stderr)
        return 2
    mistakes.spec_pattern(args.spec)  # and each of its globs matches something
    missing = [v.id for v in versions if not oracle.has_oracle(v)]
    if missing:
        print(f"opconform generate: no oracle for {', '.join(missing)}; skipped (expected outputs need one)", file=sys.stderr)
        versions = [v for v in versions if oracle.has_oracle(v)]
    out = mistakes.writable_dir(args.out)

    def progress(spec, n):
        print(f"{spec.id}: {n} cases", file=sys.stderr)

    doc = export(versions, args.count, args.seed, out, profile=args.profile, expect=oracle.expectation,
                 spec_pattern=args.spec, progress=progress)
    print(f"wrote {len(doc['cases'])} cases and {out / 'manifest.json'}")
    # Exit 1, not a traceback: the other spec versions are written and the manifest says which are missing.
    for spec_id, why in doc["not_generated"].items():
        print(f"opconform generate: {spec_id} not generated: {why}", file=sys.stderr)
    if doc["not_generated"]:
        print(f"opconform generate: {len(doc['not_generated'])} spec version(s) not generated "
              "(manifest.json \"not_generated\"); exit 1", file=sys.stderr)
        return 1
    return 0 if versions else 2
