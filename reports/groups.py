"""Failure groups: the failing cases of one (backend, spec version) that look alike -- the same
verdict and the same symptom key (suites/symptom.py: which output differs, how, on which
categorical row) -- the same grouping `opconform shrink` shrinks by. Results recorded before keys
were (no extra["symptom"]) get theirs computed from the case and outputs they hold.

Three sections, in this order: the backend's failures (biggest group first); opconform's own
harness errors (one group per spec version: not the backend's); type refusals (a backend saying it
does not take an element type, e.g. onnx.reference's "Issues with types"), one group per backend
and refused types across spec versions, listed last so that they do not bury the rest. Each group
links to its heading on the detail page of its example's spec version."""
from __future__ import annotations

from dataclasses import dataclass, field

from opconform import symptoms
from opconform.model import Result, Verdict
from opconform.reports import links
from opconform.reports.failure import case_size
from opconform.reports.resultset import ResultSet, split_spec_id, spec_sort_key
from opconform.suites import symptom

DETAIL_CHARS = 200  # the example's detail text is cut here on the first view; the page has it all
ANY_SPEC = "*"  # the spec id of a group spanning spec versions (type refusals)
SECTIONS = ("backend", "harness", "type-refusal")


@dataclass
class FailureGroup:
    backend: str
    spec_id: str  # ANY_SPEC for type refusals spanning spec versions
    verdict: str
    symptom: str
    count: int
    example: Result  # the smallest failing case of the group
    shrunk: bool  # shrinking found a minimal case for it (shown first on the page)
    minimal: Result | None = None  # that minimal case
    spec_ids: list[str] = field(default_factory=list)  # the spec versions its cases come from

    @property
    def section(self) -> str:
        if self.verdict == Verdict.HARNESS_ERROR.value:
            return "harness"
        return "type-refusal" if symptoms.is_type_refusal(self.symptom) else "backend"

    @property
    def dialect(self) -> str:
        return split_spec_id(self.example.spec_id)[0]

    @property
    def operator(self) -> str:
        return split_spec_id(self.example.spec_id)[1]

    @property
    def href(self) -> str:
        return f"{links.page(self.backend, self.example.spec_id)}#{links.group_id(self.verdict, self.symptom)}"

    @property
    def description(self) -> str:
        """One line: what the failure looks like, in words."""
        return symptoms.describe_key(self.symptom)

    @property
    def example_case_id(self) -> str:
        """The case to look at first: the minimal (shrunk) one when there is one."""
        return (self.minimal or self.example).case_id

    @property
    def detail(self) -> str:
        d = (self.minimal or self.example).detail or ""
        return d if len(d) <= DETAIL_CHARS else d[: DETAIL_CHARS - 1] + "\u2026"

    def as_dict(self) -> dict:
        """The group as summary.json lists it."""
        return {"backend": self.backend, "spec_id": self.spec_id, "spec_ids": self.spec_ids, "verdict": self.verdict,
                "symptom": self.symptom, "section": self.section, "description": self.description, "count": self.count,
                "case_id": self.example_case_id, "shrunk": self.shrunk, "smallest_run_case_id": self.example.case_id}


def symptom_of(r: Result) -> str:
    """A failing result's symptom key: recorded, or computed from what the result holds."""
    return symptom.of_result(r) or r.verdict.value


def key(r: Result) -> tuple[str, str]:
    """(verdict, symptom key): which group of its pair a failing result belongs to."""
    return (r.verdict.value, symptom_of(r))


def _grouped(r: Result) -> bool:
    return r.verdict.is_failure or r.verdict is Verdict.HARNESS_ERROR


def of_pair(results: list[Result]) -> dict[tuple[str, str], list[Result]]:
    """A pair's failing results (harness errors too) by group, each group smallest case first."""
    out: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        if _grouped(r):
            out.setdefault(key(r), []).append(r)
    for members in out.values():
        members.sort(key=case_size)
    return out


def failure_groups(rs: ResultSet) -> list[FailureGroup]:
    """Every failure group of the results: the backend's biggest first, then harness errors, then
    type refusals (across spec versions)."""
    return rs.derived(_failure_groups)


def _failure_groups(rs: ResultSet) -> list[FailureGroup]:
    members: dict[tuple[str, str, str, str], list[Result]] = {}
    for (backend, spec_id), results in rs.grouped().items():
        for (verdict, sym), rows in of_pair(results).items():
            spec = ANY_SPEC if symptoms.is_type_refusal(sym) else spec_id
            members.setdefault((backend, spec, verdict, sym), []).extend(rows)
    minimal: dict[tuple[str, str, str, str], Result] = {}
    for (backend, spec_id), shrunk in rs.shrunk.items():
        for r in shrunk:
            verdict, sym = key(r)
            k = (backend, ANY_SPEC if symptoms.is_type_refusal(sym) else spec_id, verdict, sym)
            if k in members:
                minimal.setdefault(k, r)
    out = []
    for k, rows in members.items():
        rows.sort(key=case_size)
        spec_ids = sorted({r.spec_id for r in rows}, key=spec_sort_key)
        out.append(FailureGroup(k[0], k[1], k[2], k[3], len(rows), rows[0], k in minimal, minimal.get(k), spec_ids))
    out.sort(key=lambda g: (SECTIONS.index(g.section), -g.count, g.backend, spec_sort_key(g.example.spec_id),
                            g.verdict, g.symptom))
    return out
