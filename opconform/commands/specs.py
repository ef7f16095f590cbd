"""`opconform specs`: spec library tools.

    opconform specs --missing [--spec-dir DIR]
    opconform specs import-onnx OP... [--out-dir DIR] [--min-opset 13] [--no-official]

--missing lists the standard ONNX operators without a spec file (opconform.specs.catalog: the
onnx-mlir reference's 188, those ONNX added since, and any other the installed onnx defines).

writes a spec skeleton per operator from onnx.defs, or, for a file that exists, reports how it
drifts from onnx.defs (exit 1 when it does). The versions included are those in force at some opset
from --min-opset to the latest, plus (unless --no-official) any older version an official ONNX node
case of the operator uses, as the spec library's contract asks.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opconform.specs import SPEC_ROOT, catalog, onnx_import
from opconform.commands import mistakes
from opconform.model import SpecError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--missing", action="store_true", help="list the standard ONNX operators that have no spec file")
    parser.add_argument("--spec-dir", type=Path, default=SPEC_ROOT, help="with --missing: the spec library to look in (default: the installed one)")
    sub = parser.add_subparsers(dest="specs_command", metavar="TOOL")
    p = sub.add_parser("import-onnx", help="write spec skeletons from onnx.defs, or report drift of existing files")
    p.add_argument("operators", nargs="+", metavar="OP", help="ONNX operator names, e.g. Abs Add")
    p.add_argument("--out-dir", type=Path, default=SPEC_ROOT / "onnx", help="where spec files live (default: the library's onnx folder)")
    p.add_argument("--min-opset", type=int, default=13, help="include every version in force from this opset on (default 13)")
    p.add_argument("--no-official", action="store_true", help="do not add older versions used by official ONNX node cases")


def _official_opsets(op: str) -> set[int]:
    from opconform.oracle import official

    return {c.opset for c in official.cases_for(op)}


def _import_onnx(args: argparse.Namespace) -> int:
    status = 0
    for op in args.operators:
        if not (args.out_dir / f"{op}.yaml").exists():  # a skeleton is written (an existing file is only compared)
            mistakes.writable_dir(args.out_dir, "--out-dir")
        try:
            extra = () if args.no_official else _official_opsets(op)
            path, drift = onnx_import.import_operator(op, args.out_dir, args.min_opset, extra)
        except (onnx_import.ImportOnnxError, SpecError) as e:
            print(f"import-onnx: {e}", file=sys.stderr)
            status = max(status, 2)
            continue
        if drift is None:
            print(f"wrote {path}")
        elif drift:
            status = max(status, 1)
            print(f"{path}: {len(drift)} difference(s) from onnx.defs")
            for d in drift:
                print(f"  {d}")
        else:
            print(f"{path}: agrees with onnx.defs")
    return status


def _missing(spec_dir: Path) -> int:
    if not (spec_dir / "onnx").is_dir():
        print(f"opconform specs: --spec-dir {spec_dir}: expected a spec library with an onnx/ folder", file=sys.stderr)
        return 2
    lacking = catalog.missing(spec_dir)
    origin = {"list": "onnx-mlir reference list", "added": "added to ONNX since the list", "onnx": "defined by the installed onnx"}
    for op in lacking:
        print(f"{op.key}\t{origin[op.origin]}")
    total = len(catalog.all_operators())
    print(f"{len(lacking)} of {total} standard ONNX operators have no spec", file=sys.stderr)
    return 0


def main(args: argparse.Namespace) -> int:
    if args.missing:
        if args.specs_command:
            print("opconform specs: --missing takes no tool; run it alone", file=sys.stderr)
            return 2
        return _missing(args.spec_dir)
    if args.specs_command == "import-onnx":
        return _import_onnx(args)
    print("opconform specs: expected a tool or --missing, e.g. `opconform specs import-onnx Abs`", file=sys.stderr)
    return 2
