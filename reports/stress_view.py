"""The stress section of the first view: every ladder's verdict, `slow` first, and per (backend,
stressed spec version) a log-log plot of time against size, backend solid and oracle dashed, one
colour per stress case (reports/stress_plot.py).

Read from the result lines of a stress run (suites/stress.py): rung lines carry extra.stress, the
ladders' lines extra.stress_ladder."""
from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from opconform.reports.resultset import ResultSet, spec_sort_key
from opconform.reports.stress_plot import PALETTE, Series, plot


@dataclass
class LadderRow:
    backend: str
    spec_id: str
    case: str
    verdict: str
    complexity: str
    slope: float | None
    expected_slope: float | None
    ratio: float | None
    ratio_at: int | None
    top_n: int | None
    stopped: str
    detail: str


@dataclass
class StressPlot:
    backend: str
    spec_id: str
    svg: Markup


@dataclass
class StressView:
    ladders: list[LadderRow]  # slow first
    plots: list[StressPlot]

    @property
    def slow(self) -> int:
        return sum(1 for r in self.ladders if r.verdict == "slow")


def _ladder_row(r) -> LadderRow:
    s = r.extra["stress_ladder"]
    table = s.get("table") or []
    return LadderRow(r.backend, r.spec_id, s.get("case", ""), r.verdict.value, s.get("complexity", ""), s.get("slope"),
                     s.get("expected_slope"), s.get("ratio"), s.get("ratio_at"), table[-1]["n"] if table else None,
                     s.get("stopped", ""), r.detail)


def _time(rung: dict, who: str) -> float | None:
    """The time the verdict read (the fastest warm run; the median where no fastest is recorded)."""
    return rung.get(f"{who}_fastest") or rung.get(f"{who}_seconds")


def _plot(backend: str, spec_id: str, rungs: dict[str, list]) -> StressPlot:
    series = []
    for k, (case, rows) in enumerate(rungs.items()):
        colour = PALETTE[k % len(PALETTE)]
        rows = sorted(rows, key=lambda s: s["n"])
        series.append(Series(case, [(s["n"], _time(s, "backend")) for s in rows if _time(s, "backend")], colour))
        series.append(Series(f"{case} (oracle)", [(s["n"], _time(s, "oracle")) for s in rows if _time(s, "oracle")],
                             colour, dashed=True))
    return StressPlot(backend, spec_id, Markup(plot(series, title=f"{spec_id} on {backend}")))


def of(rs: ResultSet) -> StressView | None:
    """The section's content; None when the results hold no stress run."""
    ladders, rungs = [], {}
    for r in rs.results:
        extra = r.extra or {}
        if extra.get("stress_ladder"):
            ladders.append(_ladder_row(r))
        elif isinstance(extra.get("stress"), dict) and "ladder" in extra["stress"]:
            rungs.setdefault((r.backend, r.spec_id), {}).setdefault(extra["stress"]["ladder"], []).append(extra["stress"])
    if not ladders and not rungs:
        return None
    ladders.sort(key=lambda x: (x.verdict != "slow", x.backend, spec_sort_key(x.spec_id), x.case))
    plots = [_plot(b, s, rungs[(b, s)]) for b, s in sorted(rungs, key=lambda k: (k[0], spec_sort_key(k[1])))]
    return StressView(ladders, plots)
