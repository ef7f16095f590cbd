"""`opconform diff ONNX_ID OPENVINO_ID` (or `--all`): an ONNX spec version and the OpenVINO version
that maps onto it side by side -- attributes with their defaults, element types, shape rules,
error behaviour, open choices -- then the drawn inputs on which their oracles disagree, each group
with its smallest case (oracle/openvino/dialect_diff.py; rendered by reports/dialect_diff.py).

    opconform diff onnx::GatherND-13 openvino::GatherND-8
    opconform diff --all --markdown --out docs/dialect-diff.md
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opconform import specs
from opconform.commands import mistakes
from opconform.model import SpecError
from opconform.oracle.openvino import dialect_diff
from opconform.reports import dialect_diff as render

# what docs/dialect-diff.md is generated with; its test regenerates it the same way
DOC_COUNT, DOC_SEED = 16, 0
DOC_COMMAND = f"opconform diff --all --markdown --count {DOC_COUNT} --seed {DOC_SEED} --out docs/dialect-diff.md"
ERRATA_COMMAND = "opconform diff --errata --out docs/openvino-errata.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("onnx", nargs="?", metavar="ONNX_ID", help="an onnx:: spec version, e.g. onnx::GatherND-13")
    p.add_argument("openvino", nargs="?", metavar="OPENVINO_ID", help="the openvino:: spec version that maps onto it")
    p.add_argument("--all", action="store_true", help="every OpenVINO spec version with a mapping onto an ONNX one")
    p.add_argument("--errata", action="store_true", help="the errata of every OpenVINO spec version, as Markdown (docs/openvino-errata.md)")
    p.add_argument("--markdown", action="store_true", help="Markdown instead of text")
    p.add_argument("--html", action="store_true", help="an HTML page (one pair)")
    p.add_argument("--count", type=mistakes.positive(int), default=60, help="cases drawn on each side (default 60)")
    p.add_argument("--seed", type=int, default=0, help="seed of the drawn cases (default 0)")
    p.add_argument("--out", help="write to this file instead of printing")


def documents(count: int = DOC_COUNT, seed: int = DOC_SEED) -> str:
    """docs/dialect-diff.md as DOC_COMMAND writes it."""
    diffs = [dialect_diff.diff(a, b, count=count, seed=seed) for a, b in sorted(dialect_diff.mapped_pairs(), key=lambda p: p[1])]
    return render.markdown_document(diffs, DOC_COMMAND if (count, seed) == (DOC_COUNT, DOC_SEED)
                                    else f"opconform diff --all --markdown --count {count} --seed {seed}")


def errata() -> str:
    """docs/openvino-errata.md as ERRATA_COMMAND writes it."""
    return render.errata_document([v for v in specs.all_versions() if v.dialect == "openvino"], ERRATA_COMMAND)


def main(args: argparse.Namespace) -> int:
    if args.errata:
        if args.all or args.onnx or args.openvino:
            raise mistakes.Mistake("--errata takes no spec versions and no --all")
        out = errata()
    elif args.all == bool(args.onnx or args.openvino):
        raise mistakes.Mistake("give ONNX_ID and OPENVINO_ID, or --all, or --errata")
    elif args.all:
        if not args.markdown:
            raise mistakes.Mistake("--all writes Markdown: add --markdown")
        out = documents(args.count, args.seed)
    else:
        if not args.openvino:
            raise mistakes.Mistake("give both spec versions: ONNX_ID OPENVINO_ID (e.g. onnx::GatherND-13 openvino::GatherND-8)")
        for sid in (args.onnx, args.openvino):
            try:
                specs.load(sid)
            except (SpecError, KeyError, ValueError, FileNotFoundError) as e:
                raise mistakes.Mistake(f"{sid}: {e}") from None
        try:
            d = dialect_diff.diff(args.onnx, args.openvino, count=args.count, seed=args.seed)
        except ValueError as e:
            raise mistakes.Mistake(str(e)) from None
        out = render.html_page(d) if args.html else render.markdown(d) if args.markdown else render.text(d) + "\n"
    if args.out:
        Path(args.out).write_text(out, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(out)
    return 0
