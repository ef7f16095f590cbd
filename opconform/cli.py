"""The `opconform` command.

Stages (specs, generator, oracle, backends, suites, reports) are libraries that import only earlier
stages. Commands are the composition root on top of them: each is a thin module in
opconform/commands/ with `add_arguments(parser)` and `main(args) -> int` that wires stages together
(`generate`, for instance, draws cases with the generator and attaches expectations from the oracle).
This file only routes to them, and prints a command's Mistake (opconform/commands/mistakes.py) as one
line on stderr with exit status 2."""
from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help). Modules are imported only when their command runs.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("opconform.commands.validate", "validate every spec file and check the oracle on its examples"),
    "specs": ("opconform.commands.specs", "spec library tools (import-onnx: skeletons and drift from onnx.defs)"),
    "generate": ("opconform.commands.generate", "write generated cases as ONNX backend-test / OpenVINO IR files"),
    "run": ("opconform.commands.run", "certify a backend: run cases, record verdicts (resumable)"),
    "judge": ("opconform.commands.judge", "verdicts for a backend that ran generated cases outside opconform and wrote its outputs as files"),
    "merge": ("opconform.commands.merge", "join sharded results into one results set"),
    "report": ("opconform.commands.report", "render the HTML report, JUnit XML and JSON summary"),
    "baseline": ("opconform.commands.baseline", "write a reviewed-baseline YAML from results"),
    "gate": ("opconform.commands.gate", "CI gate: exit 1 on regressions against a baseline"),
    "consensus": ("opconform.commands.consensus", "valid cases where backends agree with each other against the oracle (check the spec)"),
    "shrink": ("opconform.commands.shrink", "shrink each failure group of a results directory to a minimal case"),
    "coverage": ("opconform.commands.coverage", "table of every standard ONNX operator and what opconform covers"),
    "diff": ("opconform.commands.diff", "an ONNX spec version and the OpenVINO one mapped onto it side by side, and where their oracles disagree"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, of that command alone in full (the others listed,
    their modules not imported: importing all of them cost a second or more of every run's start)."""
    from opconform import __version__

    parser = argparse.ArgumentParser(prog="opconform", description="Executable operator specifications: generate, run, report, gate.")
    parser.add_argument("--version", action="version", version=f"opconform {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        if only is not None and name != only:
            continue
        try:
            importlib.import_module(module).add_arguments(p)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            p.set_defaults(_missing=True)
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The command the arguments name (their first word, when it is one), else None."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(_command_named(sys.argv[1:] if argv is None else list(argv)))
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    if getattr(args, "_missing", False):
        print(f"opconform {args.command}: not available in this build", file=sys.stderr)
        return 2
    from opconform.commands.mistakes import Mistake

    try:
        return int(importlib.import_module(args._module).main(args) or 0)
    except Mistake as e:  # the one error path for mistakes on the command line: one line, exit 2
        print(f"opconform {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C, or a scheduler's SIGINT: results are written as they come, so they stay
        kept = f"; the results so far stay in {args.out} (--resume goes on)" if getattr(args, "out", None) else ""
        print(f"opconform {args.command}: interrupted{kept}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
