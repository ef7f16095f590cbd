"""The consensus (reports/consensus.py) as the report shows it: the cases where backends agree with
each other against the oracle, in three lists (every backend agrees: check the spec; some agree and
another differs; known shared bugs), each case with its outputs side by side (the oracle's, then
each agreeing backend's, elements that differ from the oracle's marked), and the counts per pair."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from opconform import compare, containers
from opconform.reports import links
from opconform.reports.consensus import HEADING, Agreement, Consensus, consensus
from opconform.reports.failure import replay_command
from opconform.reports.resultset import ResultSet, split_spec_id
from opconform.reports.tensorview import TensorView, view
from opconform.suites import verdicts

PAGE = f"{links.DETAILS_DIR}/consensus.html"  # every case; the first view shows the first few of each list
MAX_ON_FIRST_VIEW = 30  # per list: the first view's size must not grow with the cases
MAX_PER_SPEC_ON_FIRST_VIEW = 3  # so that the first view names every spec version before it repeats one


@dataclass
class SlotView:
    name: str
    columns: list[tuple[str, TensorView | None]]  # ("expected (spec)", ...), then one per agreeing backend


@dataclass
class CaseRow:
    id: str  # this row's id on PAGE
    spec_id: str
    case_id: str
    dialect: str
    operator: str
    label: str
    backends: tuple[str, ...]  # agreeing
    others: list[tuple[str, str]]  # (backend, verdict) of the rest that ran the case
    verdicts: str  # space-separated verdicts of the agreeing backends, for the verdict filter
    detail: str  # the first agreeing backend's detail line
    href: str  # its detail page, relative to the report directory
    slots: list[SlotView]
    alternatives: int
    replay: str
    known_id: str = ""
    known_text: str = ""


@dataclass
class PairRow:
    a: str
    b: str
    cases: int
    spec_versions: int
    known: int
    by_spec: list[tuple[str, int, int]]  # (spec id, cases, known)


@dataclass
class ConsensusView:
    heading: str
    backends: list[str]
    all_agree: list[CaseRow] = field(default_factory=list)
    partial: list[CaseRow] = field(default_factory=list)
    known: list[CaseRow] = field(default_factory=list)
    pairs: list[PairRow] = field(default_factory=list)
    page: str = PAGE
    limit: int = MAX_ON_FIRST_VIEW
    per_spec: int = MAX_PER_SPEC_ON_FIRST_VIEW

    @property
    def total(self) -> int:
        return len(self.all_agree) + len(self.partial) + len(self.known)

    def shown(self, rows: list[CaseRow]) -> list[CaseRow]:
        """The rows of a list the first view shows: at most `per_spec` of each spec version, at most
        `limit` in all, in the list's order."""
        seen: dict[str, int] = {}
        out = []
        for r in rows:
            seen[r.spec_id] = seen.get(r.spec_id, 0) + 1
            if seen[r.spec_id] <= self.per_spec:
                out.append(r)
        return out[: self.limit]

    def shared(self, backend: str, spec_id: str) -> list[CaseRow]:
        """The rows where `backend` agrees with another one on `spec_id`: its detail page names them."""
        return [r for r in self.all_agree + self.partial + self.known if r.spec_id == spec_id and backend in r.backends]


def of(rs: ResultSet) -> ConsensusView | None:
    """Where the set's backends agree with each other against the oracle; None with fewer than two
    backends. Computed once per set: the first view, its own page and every detail page read it."""
    return rs.derived(_of)


def _of(rs: ResultSet) -> ConsensusView | None:
    return build(rs, consensus(rs.results)) if len(rs.backends) >= 2 else None


def build(rs: ResultSet, c: Consensus) -> ConsensusView:
    v = ConsensusView(HEADING, c.backends, limit=MAX_ON_FIRST_VIEW, per_spec=MAX_PER_SPEC_ON_FIRST_VIEW)
    for k, a in enumerate(c.cases):
        row = _row(rs, a, k)
        (v.known if a.known else v.all_agree if a.all_agree else v.partial).append(row)
    for (a, b), (n, s) in c.pair_totals().items():
        known = c.known_pairs.get((a, b), {})
        v.pairs.append(PairRow(a, b, n, s, sum(known.values()),
                               [(sid, k, known.get(sid, 0)) for sid, k in sorted(c.pairs[(a, b)].items())]))
    return v


def _row(rs: ResultSet, a: Agreement, k: int) -> CaseRow:
    dialect, operator, _ = split_spec_id(a.spec_id)
    first = a.results[a.backends[0]]
    where = rs.source.get((first.backend, a.case_id))
    return CaseRow(
        id=f"c-{a.case_id}-{k}",
        spec_id=a.spec_id,
        case_id=a.case_id,
        dialect=dialect,
        operator=operator,
        label=(first.case or {}).get("label", ""),
        backends=a.backends,
        others=[(b, v) for b, v in a.verdicts.items() if b not in a.backends],
        verdicts=" ".join(sorted({a.verdicts[b] for b in a.backends})),
        detail=first.detail,
        href=links.page(first.backend, a.spec_id),
        slots=_slots(a),
        alternatives=a.alternatives,
        replay=replay_command(first, where, rs.launched_as(where, first.backend)),
        known_id=a.known.id if a.known else "",
        known_text=a.known.text if a.known else "",
    )


def _slots(a: Agreement) -> list[SlotView]:
    spec = a.spec  # the rules the backends' outputs were compared by
    got = {b: a.outputs(b) for b in a.backends}
    out = []
    for j, name in enumerate(a.slots):
        if not name:
            continue
        want = a.expected[j] if j < len(a.expected) else None
        columns: list[tuple[str, TensorView | None]] = [("expected (spec)", view(want))]
        for b in a.backends:
            x = got[b][j] if j < len(got[b]) else None
            columns.append((b, view(x, _marks(spec, x, want))))
        out.append(SlotView(name, columns))
    return out


def _marks(spec, got: np.ndarray | None, want: np.ndarray | None) -> np.ndarray | None:
    """The elements where `got` differs from the oracle's, by the spec's own comparison rules."""
    if got is None or want is None:
        return None
    if containers.is_container(got) or containers.is_container(want):  # one mark per part, as compare says
        return compare.differing(got, want, verdicts.rules(spec))
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or verdicts.type_name(got.dtype) != verdicts.type_name(want.dtype):
        return None
    try:
        return ~verdicts.equal_elements(spec, verdicts.type_name(want.dtype), got, want)
    except Exception:  # noqa: BLE001 -- an element type the comparison cannot read: show it unmarked
        return None
