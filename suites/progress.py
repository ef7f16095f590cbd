"""What a person watching `opconform run` sees.

A terminal gets a live progress bar (cases done, pass / fail / unsupported, rate) and a one-screen summary
table at the end. Anything else (a CI log, a pipe, a file) gets plain lines with full names: a
progress bar there is either cut at rich's default 80 columns or repeated on every redraw.

    listener = progress.for_stderr()  # RichProgress on a terminal, LineProgress otherwise
"""
from __future__ import annotations

import sys
from collections import Counter
from time import monotonic
from typing import TextIO

from rich.console import Console
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from opconform.model import Verdict
from opconform.suites.plan import SpecCases
from opconform.suites.runner import Listener, RunSummary

_STYLE = {"pass": "green", "unsupported": "dim", "crash": "bold red", "timeout": "bold red", "harness-error": "bold magenta"}
_ORDER = [v.value for v in Verdict]
_NOT_FAILURES = tuple(v.value for v in Verdict if not v.is_failure)  # pass, unsupported, harness-error (opconform's own)


def for_stderr() -> Listener:
    """The listener for this process's stderr: a progress bar on a terminal, plain lines elsewhere.
    (isatty, not rich's own test: rich also takes FORCE_COLOR, set in CI logs that cannot redraw.)"""
    return RichProgress(Console(stderr=True)) if sys.stderr.isatty() else LineProgress(sys.stderr)


def _failures(counts: Counter) -> int:
    return sum(n for k, n in counts.items() if k not in _NOT_FAILURES)


def _worst_first(summary: RunSummary) -> list[tuple[str, Counter]]:
    return sorted(summary.counts.items(), key=lambda kv: (-_failures(kv[1]), kv[0]))


def counts_words(counts: Counter) -> str:
    """'pass 12, mismatch 3' in the order of Verdict."""
    return ", ".join(f"{k} {counts[k]}" for k in _ORDER if counts.get(k))


def timing_line(summary: RunSummary) -> str:
    run_s = summary.execution_seconds
    return (f"{summary.cases_run} cases run in {run_s:.1f} s ({summary.cases_run / run_s if run_s else 0:.0f}/s), "
            f"{summary.cases_skipped} already done; {summary.models_built} models built; "
            f"backend {summary.backend_seconds:.1f} s, build {summary.build_seconds:.1f} s, "
            f"harness {summary.harness_seconds:.1f} s; generation {summary.generation_seconds:.1f} s")


def unsupported_lines(summary: RunSummary) -> list[str]:
    """The factor values the backend does not implement (found by probing), once each, per spec."""
    from opconform.suites import probe

    lines = probe.summary_lines(summary.backend, summary.unsupported_factors)
    if summary.probes:
        lines.append(f"{'  ' if lines else ''}probing: {summary.probes} probe cases in {summary.probe_seconds:.1f} s")
    return lines


def problem_lines(summary: RunSummary, harness_limit: int = 10) -> list[str]:
    """Spec versions not run (no cases generated, or none of their valid cases ran) and harness
    errors (opconform's own failures, not the backend's): one line each."""
    lines = [f"not run: {spec_id}: {err}" for spec_id, err in summary.generation_errors.items()]
    lines += [f"not run: {spec_id}: no valid case ran ({why})" for spec_id, why in summary.not_run.items()
              if spec_id not in summary.generation_errors]
    lines += [f"harness-error (opconform's own failure, not the backend's) {h['spec_id']} case {h['case_id']}: {h['message']}"
              for h in summary.harness_errors[:harness_limit]]
    if len(summary.harness_errors) > harness_limit:
        lines.append(f"... {len(summary.harness_errors) - harness_limit} more harness errors in run.json")
    return lines


class LineProgress(Listener):
    """Plain lines for logs: one per spec version generated, a progress line at most every
    `every` seconds while cases run, and the summary with full spec ids (never cut to a width)."""

    def __init__(self, stream: TextIO, every: float = 10.0):
        self.stream, self.every = stream, every
        self.counts: Counter = Counter()
        self.total = self.done = 0
        self._started = self._shown = 0.0

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def probing(self, backend: str, total_specs: int) -> None:
        self._line(f"asking {backend} which factor values it implements ({total_specs} spec versions; cached per backend version)")

    def planning(self, total_specs: int) -> None:
        self._line(f"generating cases for {total_specs} spec versions")

    def spec_planned(self, sc: SpecCases) -> None:
        if sc.error:
            self._line(f"{sc.spec_id}: no cases: {sc.error}")
        else:
            how = "from the case cache" if sc.cached else f"in {sc.seconds:.1f} s"
            self._line(f"{sc.spec_id}: {len(sc.cases)} cases {how}" + (f" ({sc.note})" if sc.note else ""))

    def executing(self, total_cases: int, already_done: int) -> None:
        self.total = total_cases
        self._started = self._shown = monotonic()
        note = f" ({already_done} already done)" if already_done else ""
        self._line(f"running {total_cases} cases{note}")

    def result(self, spec_id: str, verdict: str) -> None:
        self.counts[verdict] += 1
        self.done += 1
        now = monotonic()
        if now - self._shown >= self.every and self.done < self.total:
            self._shown = now
            self._line(self._progress(now))

    def _progress(self, now: float) -> str:
        rate = self.done / (now - self._started) if now > self._started else 0.0
        return f"running: {self.done}/{self.total} cases, {rate:.0f}/s; {counts_words(self.counts)}"

    def finished(self, summary: RunSummary) -> None:
        for line in summary_lines(summary):
            self._line(line)


def summary_lines(summary: RunSummary, limit: int | None = None) -> list[str]:
    """The summary as plain lines: the spec versions with a failure (worst first; the first `limit`
    of them), how many had none, the totals, timings and problems."""
    rows = _worst_first(summary)
    failing = [(spec_id, counts) for spec_id, counts in rows if _failures(counts)]
    listed = failing[:limit]
    width = max((len(spec_id) for spec_id, _ in listed), default=0)
    lines = ["verdicts per spec (spec versions with a failure, worst first):" if failing else "verdicts per spec:"]
    # a spec version not run is not "without a failure": nothing was checked (see problem_lines)
    not_run_ids = summary.not_run
    not_run = [spec_id for spec_id, counts in rows if not _failures(counts) and spec_id in not_run_ids]
    lines += [f"  {spec_id.ljust(width)}  {counts_words(counts)}" for spec_id, counts in listed]
    if len(failing) > len(listed):
        lines.append(f"  ... {len(failing) - len(listed)} more spec versions with a failure (see the report)")
    if len(rows) > len(failing) + len(not_run):
        lines.append(f"  {len(rows) - len(failing) - len(not_run)} {'other ' if failing else ''}spec versions without a failure "
                     "(pass or unsupported only)")
    if not_run:
        lines.append(f"  {len(not_run)} spec versions not run: none of their valid cases ran (listed below)")
    lines.append(f"total: {counts_words(summary.totals) or 'no cases'}")
    return lines + [timing_line(summary)] + unsupported_lines(summary) + problem_lines(summary)


def _counts_markup(counts: Counter) -> str:
    """pass, failures (all kinds together) and unsupported: short enough for an 80-column bar;
    the summary breaks failures down by verdict."""
    parts = [("pass", counts.get("pass", 0)), ("fail", _failures(counts)), ("unsupported", counts.get("unsupported", 0)),
             ("harness-error", counts.get("harness-error", 0))]
    return " ".join(f"[{_STYLE.get(k, 'red')}]{k} {n}[/]" for k, n in parts if n)


class RichProgress(Listener):
    """A live progress bar and a summary table, for a terminal."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        # the counts column wraps onto another line rather than being cut at the terminal's width
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                                 TextColumn("{task.fields[counts]}", table_column=Column(no_wrap=False, overflow="fold")),
                                 console=self.console, transient=False)
        self.counts: Counter = Counter()
        self.task = None
        self._pending, self._shown = 0, 0.0

    def probing(self, backend: str, total_specs: int) -> None:
        self.console.print(f"asking {backend} which factor values it implements ({total_specs} spec versions)",
                           markup=False, highlight=False)

    def planning(self, total_specs: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task("generating", total=total_specs, rate="", counts="")

    def spec_planned(self, sc: SpecCases) -> None:
        self.progress.advance(self.task)
        if sc.error:
            self.console.print(f"{sc.spec_id}: no cases: {sc.error}", style="yellow", markup=False, highlight=False)

    def executing(self, total_cases: int, already_done: int) -> None:
        if already_done:
            self.console.print(f"{already_done} already done", highlight=False)
        self.task = self.progress.add_task("running", total=total_cases, rate="", counts="")

    def result(self, spec_id: str, verdict: str) -> None:
        self.counts[verdict] += 1
        self._pending += 1
        now = monotonic()
        if now - self._shown < 0.1:  # redrawing per case would cost more than the cases
            return
        self._shown = now
        speed = self.progress.tasks[-1].speed or 0.0
        self.progress.update(self.task, advance=self._pending, rate=f"{speed:.0f}/s", counts=_counts_markup(self.counts))
        self._pending = 0

    def finished(self, summary: RunSummary) -> None:
        if self.task is not None and self._pending:
            self.progress.update(self.task, advance=self._pending, counts=_counts_markup(self.counts))
        self.progress.stop()
        print_summary(summary, self.console)


def print_summary(summary: RunSummary, console: Console) -> None:
    """Verdict counts per spec (the worst first), totals, timings: one screen. A table when it fits
    the terminal; otherwise the plain lines, since a squeezed table cuts spec ids to `onnx::…`."""
    shown = [k for k in _ORDER if summary.totals.get(k)]
    rows = _worst_first(summary)
    limit = max(console.size.height - 14, 10)
    table = Table(title="verdicts per spec", show_lines=False, pad_edge=False)
    table.add_column("spec", no_wrap=True)
    for k in shown:
        table.add_column(k, justify="right", style=_STYLE.get(k, "red"), no_wrap=True)
    for spec_id, counts in rows[:limit]:
        table.add_row(spec_id, *[str(counts.get(k, "")) for k in shown])
    if len(rows) > limit:
        table.add_row(f"... {len(rows) - limit} more specs", *["" for _ in shown])
    table.add_row("[bold]total[/]", *[f"[bold]{summary.totals[k]}[/]" for k in shown])
    if Measurement.get(console, console.options.update_width(10_000), table).maximum > console.width:
        for line in summary_lines(summary, limit):
            console.print(line, markup=False, highlight=False)
        return
    console.print(table)
    console.print(timing_line(summary), highlight=False)
    for line in unsupported_lines(summary):
        console.print(line, markup=False, highlight=False)
    for line in problem_lines(summary):
        console.print(line, style="yellow", markup=False, highlight=False)
