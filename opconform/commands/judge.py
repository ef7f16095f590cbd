"""`opconform judge --cases DIR --outputs DIR --out RESULTS`: verdicts for a backend that ran the
generated cases outside opconform and wrote its answers as files (suites/judge.py says the layout)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from opconform.commands import mistakes


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cases", type=Path, required=True, metavar="DIR", help="the cases: a directory written by `opconform generate`")
    p.add_argument("--outputs", type=Path, required=True, metavar="DIR",
                   help="the backend's answers, laid out as --cases: <case dir>/test_data_set_0/output_K.pb, "
                        "or error.txt / unsupported.txt (crash.txt, timeout.txt)")
    p.add_argument("--out", type=Path, required=True, metavar="RESULTS", help="results directory (results.jsonl, run.json, report/)")
    p.add_argument("--backend", default="files", metavar="NAME",
                   help="the name the results carry (baselines and the gate key on it; default files)")
    p.add_argument("--backend-version", default="", metavar="TEXT", help="the backend's version, for run.json and the report")
    p.add_argument("--no-report", dest="report", action="store_false", help="do not write the HTML report to RESULTS/report")


def main(args: argparse.Namespace) -> int:
    from opconform.commands.run import closing_lines
    from opconform.suites.judge import judge_dir

    out = mistakes.writable_dir(args.out)

    def said(case_dir: str, verdict: str, problems: list[str]) -> None:
        for p in problems:  # the case is judged all the same; the file is named once here, and in its detail
            print(f"opconform judge: {args.outputs / case_dir}: {p} (verdict {verdict})", file=sys.stderr)

    try:
        summary = judge_dir(args.cases, args.outputs, out, backend=args.backend, backend_version=args.backend_version,
                            command=shlex.join(["opconform", *sys.argv[1:]]), on_result=said)
    except (ValueError, FileExistsError) as e:
        raise mistakes.Mistake(str(e)) from None
    for name, why in summary.not_judged.items():
        print(f"opconform judge: {name} not judged: {why}", file=sys.stderr)
    if summary.stray:
        print(f"opconform judge: {len(summary.stray)} folder(s) in {args.outputs} name no case of {args.cases} "
              f"(left out): {', '.join(summary.stray[:5])}{' ...' if len(summary.stray) > 5 else ''}", file=sys.stderr)
    status = 0
    if args.report:
        from opconform.commands.report import write_or_say

        status = write_or_say(out)
    else:
        print(f"results: {out.resolve()} (report: `opconform report {out} --out {out / 'report'}`)")
    for line in closing_lines(summary.counts):
        print(line)
    return max(status, 1 if summary.counts.get("harness-error") else 0)
