"""What a person watching `opconform run` sees: a progress bar while cases are generated and run
(cases done, counts per verdict, rate) and a one-screen summary at the end."""
from __future__ import annotations

from collections import Counter
from time import monotonic

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from opconform.model import Verdict
from opconform.suites.plan import SpecCases
from opconform.suites.runner import Listener, RunSummary

_STYLE = {"pass": "green", "unsupported": "dim", "crash": "bold red", "timeout": "bold red"}
_ORDER = [v.value for v in Verdict]


def _counts_text(counts: Counter) -> str:
    return " ".join(f"[{_STYLE.get(k, 'red')}]{k} {counts[k]}[/]" for k in _ORDER if counts.get(k))


class RichProgress(Listener):
    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("{task.fields[counts]}"),
                                 console=self.console, transient=False)
        self.counts: Counter = Counter()
        self.task = None
        self._pending, self._shown = 0, 0.0

    def planning(self, total_specs: int) -> None:
        self.progress.start()
        self.task = self.progress.add_task("generating", total=total_specs, rate="", counts="")

    def spec_planned(self, sc: SpecCases) -> None:
        self.progress.advance(self.task)
        if sc.error:
            self.console.print(f"[yellow]{sc.spec_id}: no cases: {sc.error}[/]")

    def executing(self, total_cases: int, already_done: int) -> None:
        note = f" ({already_done} already done)" if already_done else ""
        self.task = self.progress.add_task(f"running{note}", total=total_cases, rate="", counts="")

    def result(self, spec_id: str, verdict: str) -> None:
        self.counts[verdict] += 1
        self._pending += 1
        now = monotonic()
        if now - self._shown < 0.1:  # redrawing per case would cost more than the cases
            return
        self._shown = now
        speed = self.progress.tasks[-1].speed or 0.0
        self.progress.update(self.task, advance=self._pending, rate=f"{speed:.0f}/s", counts=_counts_text(self.counts))
        self._pending = 0

    def finished(self, summary: RunSummary) -> None:
        if self.task is not None and self._pending:
            self.progress.update(self.task, advance=self._pending, counts=_counts_text(self.counts))
        self.progress.stop()
        print_summary(summary, self.console)


def print_summary(summary: RunSummary, console: Console) -> None:
    """Verdict counts per spec (the worst first), totals, timings: one screen."""
    shown = [k for k in _ORDER if summary.totals.get(k)]
    table = Table(title="verdicts per spec", show_lines=False, pad_edge=False)
    table.add_column("spec")
    for k in shown:
        table.add_column(k, justify="right", style=_STYLE.get(k, "red"))
    rows = sorted(summary.counts.items(), key=lambda kv: (-sum(v for k, v in kv[1].items() if k not in ("pass", "unsupported")), kv[0]))
    limit = max(console.size.height - 14, 10)
    for spec_id, counts in rows[:limit]:
        table.add_row(spec_id, *[str(counts.get(k, "")) for k in shown])
    if len(rows) > limit:
        table.add_row(f"... {len(rows) - limit} more specs", *["" for _ in shown])
    table.add_row("[bold]total[/]", *[f"[bold]{summary.totals[k]}[/]" for k in shown])
    console.print(table)
    run_s = summary.execution_seconds
    console.print(
        f"{summary.cases_run} cases run in {run_s:.1f} s ({summary.cases_run / run_s if run_s else 0:.0f}/s), "
        f"{summary.cases_skipped} already done; {summary.models_built} models built; "
        f"backend {summary.backend_seconds:.1f} s, build {summary.build_seconds:.1f} s, harness {summary.harness_seconds:.1f} s; "
        f"generation {summary.generation_seconds:.1f} s"
    )
    for spec_id, err in summary.generation_errors.items():
        console.print(f"[yellow]not run: {spec_id}: {err}[/]")
    for h in summary.harness_errors[:10]:
        console.print(f"[yellow]harness error (not a verdict) {h['spec_id']} case {h['case_id']}: {h['message']}[/]")
    if len(summary.harness_errors) > 10:
        console.print(f"[yellow]... {len(summary.harness_errors) - 10} more harness errors in run.json[/]")
