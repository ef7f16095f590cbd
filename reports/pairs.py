"""One (backend, spec version) as its detail page shows it: counts, breakdowns, the open-choice
policies followed, and the failures by symptom group, each group's minimal (shrunk) case first and then
its smallest failing cases, with inputs, expected against got, and the replay command."""
from __future__ import annotations

from dataclasses import dataclass, field

from opconform import symptoms
from opconform.model import Result
from opconform.reports import breakdown, factor_coverage, groups, links
from opconform.reports.factor_coverage import PairCoverage, UnsupportedValue
from opconform.reports.failure import FailureView, failure_view
from opconform.reports.resultset import ResultSet, split_spec_id
from opconform.reports.tally import Tally

MAX_FAILURES_PER_GROUP = 10  # shown in full per group; the rest are counted, and are in results.jsonl


@dataclass
class GroupView:
    id: str  # the heading's id: the first view links here
    verdict: str
    symptom: str  # the symptom key (reports/groups.py)
    count: int
    failures: list[FailureView]
    not_shown: int

    @property
    def description(self) -> str:
        return symptoms.describe_key(self.symptom)


@dataclass
class PairView:
    backend: str
    spec_id: str
    dialect: str
    operator: str
    anchor: str
    page: str  # relative to the report directory
    version: str  # the backend's version
    tally: Tally
    by_element_type: list
    by_attribute: list
    by_outputs: list
    by_relation: list
    policies: list
    groups: list[GroupView]
    coverage: PairCoverage | None = None  # factor tuples exercised on this backend
    unsupported: list[UnsupportedValue] = field(default_factory=list)  # factor values the backend does not support

    @property
    def failures(self) -> list[FailureView]:
        return [f for g in self.groups for f in g.failures]


def _view(rs: ResultSet, r: Result, backend: str, case_id: str | None) -> FailureView:
    where = rs.source.get((backend, case_id)) if case_id else None
    return failure_view(r, where, rs.launched_as(where, backend))


def _group(rs: ResultSet, backend: str, verdict: str, symptom: str, members: list[Result],
           shrunk: list[Result]) -> GroupView:
    # only the shown cases are decoded: a pair can fail thousands of cases
    shown = [_view(rs, r, backend, r.extra.get("shrunk_from")) for r in shrunk]
    shown += [_view(rs, r, backend, r.case_id) for r in members[:MAX_FAILURES_PER_GROUP]]
    return GroupView(links.group_id(verdict, symptom), verdict, symptom, len(members), shown,
                     max(0, len(members) - MAX_FAILURES_PER_GROUP))


def pair(rs: ResultSet, backend: str, spec_id: str, results: list[Result]) -> PairView:
    d, op, _ = split_spec_id(spec_id)
    shrunk: dict[tuple[str, str], list[Result]] = {}
    for r in rs.shrunk.get((backend, spec_id), ()):
        shrunk.setdefault(groups.key(r), []).append(r)
    by_group = groups.of_pair(results)
    for k in shrunk:  # a minimal case whose group has no run failure left (e.g. a resumed run) still shows
        by_group.setdefault(k, [])
    views = [_group(rs, backend, v, sym, by_group[(v, sym)], shrunk.get((v, sym), [])) for v, sym in sorted(by_group)]
    return PairView(
        backend, spec_id, d, op, links.anchor(backend, spec_id), links.page(backend, spec_id),
        rs.backend_versions().get(backend, ""), Tally.of(results),
        breakdown.by_element_type(results), breakdown.by_attribute(results), breakdown.by_outputs(results),
        breakdown.by_relation(results), breakdown.policies(results), views,
        factor_coverage.of(rs).get((backend, spec_id)), factor_coverage.unsupported_of(rs).get((backend, spec_id), []),
    )


def pairs(rs: ResultSet):
    """Every (backend, spec version) with results, one at a time (a page is written before the next
    one's failures are decoded)."""
    grouped = rs.grouped()
    for s in rs.spec_ids:
        for b in rs.backends:
            if (b, s) in grouped:
                yield pair(rs, b, s, grouped[(b, s)])
