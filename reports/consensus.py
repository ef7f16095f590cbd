"""Where independent backends agree with each other against the oracle: a finding about the spec.

When two backends built apart return the same outputs for a valid case and opconform's oracle
alone expects something else, the spec (or the oracle's reading of it) is the likelier culprit.
`consensus(results)` finds those cases in results of several backends over the same case ids:

- a case counts when at least two backends failed it with outputs (mismatch, wrong-shape,
  wrong-dtype) and those outputs agree with each other under the spec's own comparison rules
  (suites.verdicts.compare: same element types and shapes, NaN == NaN, the spec's signed-zero
  policy and tolerance), checked both ways so that the relation is symmetric;
- the agreeing backends of a case form a group (connected by pairwise agreement); `all_agree` says
  no other backend returned outputs for it (every answer there was is this one);
- a group is `known` when a known shared bug of the spec version (the spec's `known_shared_bugs`,
  specs/known_bugs.py) covers the case and those backends: then it is a bug they share, named
  with the text that makes it one, not something to check in the spec.

Pairwise counts, per spec version, say which backends agree against the oracle how often.
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from opconform import containers
from opconform.model import Case, KnownSharedBug, Result, SpecVersion, Verdict
from opconform.reports.resultset import spec_sort_key
from opconform.specs import known_bugs, loader
from opconform.suites import verdicts

# verdicts where the backend returned every output asked, and they disagree with the oracle
WRONG_OUTPUTS = frozenset({Verdict.MISMATCH, Verdict.WRONG_SHAPE, Verdict.WRONG_DTYPE})
HEADING = "all backends agree against the spec: check the spec"


@dataclass(frozen=True)
class Agreement:
    """One valid case on which `backends` (two or more) returned the same outputs, not the oracle's."""

    case_id: str
    spec_id: str
    backends: tuple[str, ...]  # the agreeing backends, sorted
    all_agree: bool  # no other backend returned outputs for this case
    verdicts: Mapping[str, str]  # every backend that ran the case -> its verdict
    results: Mapping[str, Result]  # every backend that ran the case -> its result
    slots: tuple[str, ...]  # output names, one per output slot ("" for a slot not asked)
    expected: tuple[np.ndarray | None, ...]  # the oracle's outputs (first allowed alternative)
    alternatives: int  # how many outcomes the spec allows
    known: KnownSharedBug | None = None
    spec: SpecVersion | None = field(default=None, repr=False, compare=False)  # whose rules compared them
    agreeing: tuple[tuple[str, str], ...] = ()  # (a, b), a < b: the pairs whose outputs agree

    def outputs(self, backend: str | None = None) -> tuple[np.ndarray | None, ...]:
        """What `backend` returned, one array per output slot (default: the first agreeing backend)."""
        return decode_outputs(self.results[backend or self.backends[0]].got or ())

    def pairs(self) -> list[tuple[str, str]]:
        """The pairs of the group that agree directly (a tolerance need not be transitive)."""
        return list(self.agreeing)


@dataclass
class Consensus:
    backends: list[str]  # every backend in the results
    cases: list[Agreement]  # check-the-spec first (all agree before part agree), then known ones
    # (backend a, backend b), a < b -> spec id -> cases where both agree against the oracle
    pairs: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    known_pairs: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)  # of those, covered by a known bug
    unloadable: dict[str, str] = field(default_factory=dict)  # spec id -> why it was skipped

    @property
    def to_check(self) -> list[Agreement]:
        """The groups no known shared bug explains: check the spec."""
        return [a for a in self.cases if a.known is None]

    def pair_totals(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(a, b) -> (cases, spec versions) where a and b agree against the oracle."""
        return {p: (sum(by_spec.values()), len(by_spec)) for p, by_spec in sorted(self.pairs.items())}

    def to_json(self) -> dict:
        return {
            "backends": self.backends,
            "pairs": [{"backends": list(p), "cases": n, "spec_versions": s,
                       "known": sum(self.known_pairs.get(p, {}).values()),
                       "by_spec": dict(sorted(self.pairs[p].items())),
                       "known_by_spec": dict(sorted(self.known_pairs.get(p, {}).items()))}
                      for p, (n, s) in self.pair_totals().items()],
            "cases": [_case_json(a) for a in self.cases],
            "unloadable": self.unloadable,
        }


def consensus(results: Iterable[Result], *, spec_loader: Callable[[str], SpecVersion] | None = None) -> Consensus:
    """The agreement groups against the oracle in `results` (several backends, same case ids).
    Results of one backend only give none. `spec_loader(spec_id)` gives the spec version whose
    comparison rules and known bugs apply (the installed library by default)."""
    spec_loader = spec_loader or loader.load
    by_case: dict[str, dict[str, Result]] = defaultdict(dict)
    backends: set[str] = set()
    for r in results:
        backends.add(r.backend)
        by_case[r.case_id][r.backend] = r
    out = Consensus(sorted(backends), [])
    specs: dict[str, SpecVersion | None] = {}
    for case_id, per_backend in by_case.items():
        wrong = {b: r for b, r in per_backend.items() if r.verdict in WRONG_OUTPUTS and r.got and _valid(r)}
        if len(wrong) < 2:
            continue
        spec_id = next(iter(wrong.values())).spec_id
        spec = _spec(spec_id, specs, out.unloadable, spec_loader)
        if spec is None:
            continue
        case = Case.from_json(next(iter(wrong.values())).case)
        slots = tuple(name for _, name in verdicts.output_slots(spec, case))
        groups, edges = _groups(spec, slots, wrong)
        for group in groups:
            agreeing = tuple(e for e in edges if e[0] in group)
            out.cases.append(_agreement(spec, case, slots, group, agreeing, per_backend))
    # to check before known; every backend agreeing before some; more backends first; then by spec version
    out.cases.sort(key=lambda a: (a.known is not None, not a.all_agree, -len(a.backends),
                                  spec_sort_key(a.spec_id), a.backends, a.case_id))
    for a in out.cases:
        for p in a.pairs():
            _bump(out.pairs, p, a.spec_id)
            if a.known is not None:
                _bump(out.known_pairs, p, a.spec_id)
    return out


def _bump(table: dict, pair: tuple[str, str], spec_id: str) -> None:
    by_spec = table.setdefault(pair, {})
    by_spec[spec_id] = by_spec.get(spec_id, 0) + 1


def _valid(r: Result) -> bool:
    return bool(r.case) and (r.case.get("expected") or {}).get("kind") == "outputs"


def _spec(spec_id: str, cache: dict, unloadable: dict, spec_loader) -> SpecVersion | None:
    if spec_id not in cache:
        try:
            cache[spec_id] = spec_loader(spec_id)
        except Exception as e:  # a spec the library no longer has (renamed, removed): say so, go on
            cache[spec_id] = None
            unloadable[spec_id] = (str(e).splitlines() or [type(e).__name__])[0]
    return cache[spec_id]


def decode_outputs(encoded: Sequence[Mapping | None]) -> tuple[np.ndarray | None, ...]:
    """A result's `got` as arrays; None for a slot not returned or that could not be encoded."""
    out = []
    for e in encoded:
        try:
            out.append(None if e is None or e.get("unencodable") else containers.decode(e))
        except ValueError:
            out.append(None)
    return tuple(out)


def agree(spec: SpecVersion, slots: Sequence[str], a: Sequence[np.ndarray | None], b: Sequence[np.ndarray | None]) -> bool:
    """Do two backends' outputs agree under the spec's comparison rules, on every slot asked?"""
    for j, name in enumerate(slots):
        if not name:
            continue
        x = a[j] if j < len(a) else None
        y = b[j] if j < len(b) else None
        if x is None or y is None:  # an output that was not returned, or that could not be read back
            return False
        x, y = np.asarray(x), np.asarray(y)
        # widening a signalling NaN (an edge value backends return) warns "invalid"; it stays NaN
        with np.errstate(invalid="ignore", over="ignore"):
            if verdicts.compare(spec, name, x, y) is not None or verdicts.compare(spec, name, y, x) is not None:
                return False
    return True


def _groups(spec: SpecVersion, slots: tuple[str, ...],
            wrong: Mapping[str, Result]) -> tuple[list[tuple[str, ...]], list[tuple[str, str]]]:
    """The backends of `wrong` joined by pairwise agreement (connected components of two or more),
    and the pairs that agree."""
    names = sorted(wrong)
    outputs = {b: decode_outputs(wrong[b].got) for b in names}
    parent = {b: b for b in names}

    def root(b: str) -> str:
        while parent[b] != b:
            b = parent[b]
        return b

    edges = [(a, b) for a, b in itertools.combinations(names, 2) if agree(spec, slots, outputs[a], outputs[b])]
    for a, b in edges:
        parent[root(b)] = root(a)
    members: dict[str, list[str]] = defaultdict(list)
    for b in names:
        members[root(b)].append(b)
    return [tuple(m) for m in members.values() if len(m) >= 2], edges


def _agreement(spec: SpecVersion, case: Case, slots: tuple[str, ...], group: tuple[str, ...],
               agreeing: tuple[tuple[str, str], ...], per_backend: Mapping[str, Result]) -> Agreement:
    answered = {b for b, r in per_backend.items() if r.got or r.verdict is Verdict.PASS}
    alternatives = case.expected.alternatives
    return Agreement(
        case_id=per_backend[group[0]].case_id,
        spec_id=spec.id,
        backends=group,
        all_agree=answered <= set(group),
        verdicts={b: r.verdict.value for b, r in sorted(per_backend.items())},
        results=dict(sorted(per_backend.items())),
        slots=slots,
        expected=tuple(alternatives[0].outputs) if alternatives else (),
        alternatives=len(alternatives),
        known=known_bugs.covering(spec, case.inputs, case.attributes, group),
        spec=spec,
        agreeing=agreeing,
    )


def _case_json(a: Agreement) -> dict:
    first = a.results[a.backends[0]]
    return {
        "case_id": a.case_id,
        "spec_id": a.spec_id,
        "backends": list(a.backends),
        "all_agree": a.all_agree,
        "verdicts": dict(a.verdicts),
        "known": None if a.known is None else {"id": a.known.id, "text": a.known.text},
        "detail": first.detail,
        "got": list(first.got or ()),
        "expected": [None if x is None else containers.encode(x) for x in a.expected],
        "alternatives": a.alternatives,
        "label": (first.case or {}).get("label", ""),
    }
