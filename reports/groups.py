"""Failure groups: the failing cases of one (backend, spec version) with the same verdict and
broken relation -- the same grouping `opconform shrink` shrinks by. The first view lists the
groups, biggest first; each links to its heading on the pair's detail page."""
from __future__ import annotations

from dataclasses import dataclass

from opconform.model import Result
from opconform.reports import breakdown, links
from opconform.reports.failure import case_size
from opconform.reports.resultset import ResultSet, split_spec_id, spec_sort_key

DETAIL_CHARS = 200  # the example's detail text is cut here on the first view; the page has it all


@dataclass
class FailureGroup:
    backend: str
    spec_id: str
    verdict: str
    relation: str | None
    count: int
    example: Result  # the smallest failing case of the group
    shrunk: bool  # shrinking found a minimal case for it (shown first on the page)

    @property
    def dialect(self) -> str:
        return split_spec_id(self.spec_id)[0]

    @property
    def operator(self) -> str:
        return split_spec_id(self.spec_id)[1]

    @property
    def href(self) -> str:
        return f"{links.page(self.backend, self.spec_id)}#{links.group_id(self.verdict, self.relation)}"

    @property
    def detail(self) -> str:
        d = self.example.detail or ""
        return d if len(d) <= DETAIL_CHARS else d[: DETAIL_CHARS - 1] + "\u2026"


def key(r: Result) -> tuple[str, str]:
    """(verdict, broken relation or ""): which group a failing result belongs to."""
    return (r.verdict.value, breakdown.relation(r) or "")


def of_pair(results: list[Result]) -> dict[tuple[str, str], list[Result]]:
    """A pair's failing results by group, each group smallest case first."""
    out: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        if r.verdict.is_failure:
            out.setdefault(key(r), []).append(r)
    for members in out.values():
        members.sort(key=case_size)
    return out


def failure_groups(rs: ResultSet) -> list[FailureGroup]:
    """Every failure group of the results, the biggest first."""
    out = []
    for (backend, spec_id), results in rs.grouped().items():
        shrunk = {key(r) for r in rs.shrunk.get((backend, spec_id), ())}
        for (verdict, relation), members in of_pair(results).items():
            out.append(FailureGroup(backend, spec_id, verdict, relation or None, len(members), members[0],
                                    (verdict, relation) in shrunk))
    out.sort(key=lambda g: (-g.count, g.backend, spec_sort_key(g.spec_id), g.verdict, g.relation or ""))
    return out
