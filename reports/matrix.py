"""The spec version x backend matrix of the first view, worst rows first.

Worst first means: the lowest pass rate on any backend, then the most failing cases over all
backends, then by name. Rows where nothing ran (every case unsupported) go last: they say nothing
about correctness. Each row also carries its rank by name, so the page can switch order without
asking for anything."""
from __future__ import annotations

from dataclasses import dataclass

from opconform.reports import factor_coverage, links
from opconform.reports.factor_coverage import PairCoverage
from opconform.reports.resultset import ResultSet, split_spec_id, spec_sort_key
from opconform.reports.tally import VERDICTS, Tally


@dataclass
class Cell:
    backend: str
    tally: Tally | None  # None: this backend did not run the spec version
    href: str  # its detail page
    coverage: PairCoverage | None = None  # factor tuples exercised on this backend


@dataclass
class MatrixRow:
    spec_id: str
    dialect: str
    operator: str
    cells: list[Cell]
    total: Tally
    verdicts: str  # space-separated verdicts present, for the filter
    name_rank: int = 0  # position when sorted by name
    worst_rank: int = 0  # position when sorted worst first

    def worst_key(self) -> tuple:
        rates = [c.tally.pass_rate for c in self.cells if c.tally is not None and c.tally.pass_rate is not None]
        return (not rates, min(rates, default=1.0), -self.total.failed, spec_sort_key(self.spec_id))


def rows(rs: ResultSet, tallies: dict[tuple[str, str], Tally]) -> list[MatrixRow]:
    """The matrix rows, worst first, each knowing both of its ranks."""
    out = []
    cov = factor_coverage.of(rs)
    for rank, s in enumerate(rs.spec_ids):  # spec_ids are in name order
        d, op, _ = split_spec_id(s)
        cells = [Cell(b, tallies.get((b, s)), links.page(b, s), cov.get((b, s))) for b in rs.backends]
        total = sum((c.tally for c in cells if c.tally), Tally())
        verdicts = " ".join(v.value for v in VERDICTS if total.counts[v])
        out.append(MatrixRow(s, d, op, cells, total, verdicts, name_rank=rank))
    out.sort(key=MatrixRow.worst_key)
    for rank, row in enumerate(out):
        row.worst_rank = rank
    return out

