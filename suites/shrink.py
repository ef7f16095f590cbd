"""Shrinking a run's failures: per failure group, Hypothesis searches the spec's cases for one the
backend fails the same way, and shrinks it to a minimal case.

A group is (backend, spec id, verdict, symptom key): failures that look alike (suites/symptom.py,
opconform/symptoms.py: which output differs, how, on which categorical row). A type refusal's group
spans spec versions (spec id "*"): its search runs in the spec version of its smallest case.
opconform's own failures (harness-error) are no group here: there is nothing of the backend's to
shrink. The run's own failing cases are the smallest of a fixed sample; Hypothesis, searching with
the generator's strategy held to the group's categorical row and a test that fails when the backend
gets the group's verdict with the group's symptom, finds a failing example and shrinks it to the
minimal one. Each case runs in an isolated worker (suites.isolated), so a backend that crashes costs
a fresh worker, not the shrinker.

    DIR/shrunk.jsonl  one Result line per minimal case, extra["shrunk"] = true and
                      extra["shrunk_from"] = a failing case id of its group (appended, flushed)
    DIR/shrunk.json   per group: shrunk; unshrunk (no smaller failing case within the budget,
                      but the group's own smallest case fails alike again when run alone: that
                      case is its example, case_id); not-reproducible (neither a smaller case nor
                      the group's own cases fail alike when run again, RERUNS runs each:
                      a failure that comes and goes, e.g. a crash from damage earlier cases
                      left in the process, or unwritten memory that happened to hold the right
                      value); skipped (the total time cap was spent) or error. The detail says
                      what the search found first (nothing within N cases, or a minimal case
                      that did not fail alike again)

A failure that comes and goes is run several times before it is called not reproduced: the
minimal case, and the group's own cases, get up to RERUNS runs each (a crash's first in a fresh worker).
The search draws small cases first (the smoke profile's sizes); finding none, it draws again at
the run's own profile's sizes with the rest of the group's time (OpenVINO's Unique failures over
an axis need inputs the smoke sizes seldom make).

Search settings are explicit: seeded with the run's seed, no example database, no deadline, at most
`max_examples` examples and `budget` seconds per group (past the budget every example counts as
passing, so Hypothesis stops with the smallest failing case found so far). With a total cap
(`total_budget`), the groups are taken biggest first and each gets at most its fair share of the
time left."""
from __future__ import annotations

import json
import random
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from time import monotonic
from typing import Callable

from opconform import symptoms
from opconform.model import Case, Outcome, Result, Verdict
from opconform.suites import merge, symptom

SHRUNK_FILE = merge.SHRUNK_FILE
SUMMARY_FILE = "shrunk.json"
DEFAULT_BUDGET = 30.0
DEFAULT_MAX_EXAMPLES = 200
MIN_GROUP_SECONDS = 3.0  # under a total cap, the least a group is searched for; with less left, the rest are skipped
ANY_SPEC = "*"  # the spec id of a group spanning spec versions (a type refusal)
RERUNS = 3  # runs of a case before it is said not to fail alike again
OWN_CASES = 3  # a group's own smallest failing cases run again when the search finds none
SEARCH_PROFILE = "smoke"  # sizes the search draws first

# what the search runs: a case -> (verdict, symptom key) the backend's answer gets
Execute = Callable[[Case], tuple[Verdict, str | None]]


@dataclass
class Group:
    backend: str
    spec_id: str  # ANY_SPEC for a type refusal spanning spec versions
    verdict: str
    relation: str | None  # the broken relation, for invalid cases
    kind: str  # "valid" or "invalid": which strategy to search
    failing: list[Result] = field(default_factory=list)
    symptom: str | None = None  # the symptom key every case of the group shows

    @property
    def representative(self) -> Result:
        """The group's smallest failing case: the one a shrunk case is said to come from."""
        return min(self.failing, key=lambda r: case_size(Case.from_json(r.case)))

    @property
    def search_spec_id(self) -> str:
        """The spec version the search draws from: the group's, or its smallest case's."""
        return self.representative.spec_id if self.spec_id == ANY_SPEC else self.spec_id


@dataclass
class GroupReport:
    backend: str
    spec_id: str
    verdict: str
    relation: str | None
    failing: int
    shrunk_from: str
    status: str  # shrunk | unshrunk | not-reproducible | skipped | error
    examples: int = 0  # cases the search executed
    seconds: float = 0.0
    case_id: str | None = None
    size: tuple[int, int] | None = None  # case_size of the minimal case
    detail: str = ""
    symptom: str | None = None


def case_size(case: Case) -> tuple[int, int]:
    """(dimensions, elements) summed over the inputs: how big a case is, fewer dimensions first (a
    scalar is smaller than an empty vector), which is also the order Hypothesis shrinks shapes in."""
    import numpy as np

    present = [x for x in case.inputs if x is not None]
    return int(sum(np.ndim(x) for x in present)), int(sum(np.size(x) for x in present))


def groups(results: list[Result]) -> list[Group]:
    """Failures grouped by (backend, spec id, verdict, symptom key), biggest group first (first
    seen among equals). Harness errors are opconform's, not the backend's: no group."""
    out: dict[tuple, Group] = {}
    for r in results:
        if not r.verdict.is_failure or r.case is None:
            continue
        key = symptom.of_result(r)
        invalid = r.extra.get("expected_kind", "outputs") != "outputs"
        relation = r.extra.get("relation") if invalid else None
        spec_id = ANY_SPEC if key and symptoms.is_type_refusal(key) else r.spec_id
        g = out.setdefault((r.backend, spec_id, r.verdict.value, key),
                           Group(r.backend, spec_id, r.verdict.value, relation, "invalid" if invalid else "valid", symptom=key))
        g.failing.append(r)
    return sorted(out.values(), key=lambda g: -len(g.failing))


def _pins(spec, group: Group) -> dict:
    """The categorical row the search holds: the representative case's (suites/symptom.row), its
    element types only for a type refusal; none for must-refuse cases (a row pins valid ones)."""
    if group.kind != "valid":
        return {}
    row = symptom.row(spec, Case.from_json(group.representative.case))
    if group.symptom and symptoms.is_type_refusal(group.symptom):
        return {k: v for k, v in row.items() if k.startswith("type:")}
    return row


def search(spec, group: Group, execute: Execute, *, seed: int, budget: float, max_examples: int,
           profile: str = SEARCH_PROFILE) -> Case | None:
    """The minimal case of the group's spec, within its categorical row, that `execute` answers with
    the group's verdict and symptom (and that breaks the group's relation), or None when none is
    found within the budget. A group without a symptom (made by hand) matches on the verdict alone."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis.errors import NoSuchExample

    from opconform import generator, oracle

    # a relation of the spec's own the generator can aim at; one the oracle raises from the values
    # (integer_overflow: an undefined outcome) it cannot, so there any case failing alike will do
    aimed = group.relation is None or any(r.id == group.relation for r in spec.relations)
    relations = [group.relation] if group.kind == "invalid" and group.relation and aimed else None
    strategy = generator.cases(spec, kind=group.kind, profile=profile, expect=oracle.expectation,
                               row=_pins(spec, group) if group.failing else None, relations=relations)
    stop = monotonic() + budget
    # case id -> failed alike. A case already run keeps its answer after the budget runs out: Hypothesis
    # re-runs the minimal example at the end, and must see it fail again (else: FlakyFailure)
    seen: dict[str, bool] = {}

    def fails_alike(case: Case) -> bool:
        if aimed and case.expected.relation != group.relation:
            return False
        if case.id not in seen:
            if seen and monotonic() > stop:  # at least one case runs, however slow the draws
                return False
            verdict, key = execute(case)
            seen[case.id] = verdict.value == group.verdict and (group.symptom is None or symptoms.alike(key, group.symptom))
        return seen[case.id]

    config = settings(database=None, deadline=None, derandomize=True, max_examples=max_examples,
                      phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
                      report_multiple_bugs=False, print_blob=False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NaN and overflow are drawn on purpose, as in the workers
            return hypothesis.find(strategy, fails_alike, settings=config, random=random.Random(seed))
    except NoSuchExample:
        return None


def shrink(results_dir: str | Path, backend_ref: str, *, seed: int | None = None, budget: float = DEFAULT_BUDGET,
           max_examples: int = DEFAULT_MAX_EXAMPLES, timeout: float | None = None, total_budget: float | None = None,
           on_group: Callable[[GroupReport], None] | None = None) -> list[GroupReport]:
    """Shrink every failure group of DIR's results on `backend_ref`; append the minimal cases to
    DIR/shrunk.jsonl and write DIR/shrunk.json. seed and timeout default to the run's (run.json).
    total_budget: seconds for all groups together (None: no cap); past it the rest are skipped."""
    d = merge.read_dir(results_dir)
    seed = int(d.run.get("seed") or 0) if seed is None else seed
    timeout = min(float(d.run.get("timeout") or 60.0), budget) if timeout is None else timeout
    reports: list[GroupReport] = []
    todo = groups(d.results)
    stop = None if total_budget is None else monotonic() + total_budget
    with _Executor(backend_ref, timeout) as executor, (d.path / SHRUNK_FILE).open("a", encoding="utf-8") as out:
        for i, g in enumerate(todo):
            left = None if stop is None else stop - monotonic()
            # a fair share of the time left, but never less than MIN_GROUP_SECONDS: past the cap the
            # smallest groups are skipped, rather than every group searched too briefly to shrink
            share = budget if left is None else min(budget, left, max(left / (len(todo) - i), MIN_GROUP_SECONDS))
            if share < MIN_GROUP_SECONDS:
                report = _report(g)
                report.status, report.detail = "skipped", f"the total shrink time cap ({total_budget:g} s) was spent"
            else:
                report = _shrink_group(g, executor, seed=seed, budget=share, max_examples=max_examples, out=out,
                                       profile=str(d.run.get("profile") or SEARCH_PROFILE))
            reports.append(report)
            if on_group:
                on_group(report)
    summary = {"backend": backend_ref, "seed": seed, "budget": budget, "max_examples": max_examples,
               "timeout": timeout, "total_budget": total_budget, "groups": [asdict(r) for r in reports]}
    (d.path / SUMMARY_FILE).write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return reports


class _Executor:
    """One isolated worker for the whole shrink (a crash costs a fresh one): the searches' cases and
    the run again of each minimal case, for its full result."""

    def __init__(self, backend_ref: str, timeout: float):
        from opconform.suites.isolated import IsolatedBackend

        self.backend_ref, self.timeout = backend_ref, timeout
        self.isolated = IsolatedBackend(backend_ref, timeout=timeout)
        self.executed = 0  # cases run by the searches

    def __enter__(self) -> "_Executor":
        return self

    def __exit__(self, *exc) -> None:
        self.isolated.close()

    def answer(self, spec, case: Case) -> tuple[Verdict, str | None]:
        """(verdict, symptom key) of one case. A crash or timeout has no result from the worker: its
        key is computed here, from what is known (the case and the verdict)."""
        self.executed += 1
        judged = self.isolated.run(spec, case)
        key = judged.symptom
        if key is None and judged.verdict.is_failure:
            key = symptom.of_case(spec, case, Outcome(judged.verdict.value, message=judged.backend_message), judged.verdict)
        return judged.verdict, key

    def fails_alike(self, spec, case: Case, g: Group, runs: int = RERUNS) -> tuple[dict | None, int]:
        """Run a case up to `runs` times until it fails as the group does: (that run's full Result,
        runs made), or (None, runs). A crash or timeout is tried first in a fresh worker: the run's
        may have come from damage earlier cases left in the process."""
        if g.verdict in (Verdict.CRASH.value, Verdict.TIMEOUT.value):
            self.isolated.close()
        for n in range(1, runs + 1):
            fresh = self.result(spec, case)
            if _alike(g, fresh):
                return fresh, n
        return None, runs

    def result(self, spec, case: Case) -> dict:
        """The full Result (with what the backend returned) of one case, run again."""
        from opconform.suites import record

        judged = self.isolated.run(spec, case)
        if self.isolated.last_result is not None:
            return self.isolated.last_result
        return record.make(spec, case, Outcome(judged.verdict.value, message=judged.detail), self.backend_ref)


def _report(g: Group) -> GroupReport:
    return GroupReport(g.backend, g.spec_id, g.verdict, g.relation, len(g.failing), g.representative.case_id,
                       "not-found", symptom=g.symptom)


def _shrink_group(g: Group, executor: _Executor, *, seed: int, budget: float, max_examples: int, out,
                  profile: str = SEARCH_PROFILE) -> GroupReport:
    from opconform import specs

    report = _report(g)
    t0 = monotonic()
    try:
        spec = specs.load(g.search_spec_id)
        executed_before = executor.executed
        case = None
        try:
            # small cases first; finding none, the run's own sizes with the time left
            passes = [SEARCH_PROFILE] + ([profile] if profile != SEARCH_PROFILE else [])
            for i, size in enumerate(passes):
                left = budget - (monotonic() - t0)
                if i and (case is not None or left < MIN_GROUP_SECONDS / 2):
                    break
                # the first pass always runs; it leaves half the time to the next unless that is too short
                share = left if i == len(passes) - 1 or left < 2 * MIN_GROUP_SECONDS else left / 2
                case = search(spec, g, lambda c: executor.answer(spec, c), seed=seed, budget=share,
                              max_examples=max_examples, profile=size)
        finally:
            report.examples = executor.executed - executed_before
        if case is not None:
            fresh, runs = executor.fails_alike(spec, case, g)
            _record(g, case, fresh, runs, report, out)
        if report.status != "shrunk":
            _own_cases(g, executor, report, out, budget=max(budget - (monotonic() - t0), MIN_GROUP_SECONDS))
    except Exception as e:  # noqa: BLE001 - one group's failure must not lose the others
        report.status, report.detail = "error", f"{type(e).__name__}: {e}".splitlines()[0][:300]
    report.seconds = round(monotonic() - t0, 3)
    return report


def _alike(g: Group, fresh: dict) -> bool:
    return fresh["verdict"] == g.verdict and (g.symptom is None or symptoms.alike(symptom.from_dict(fresh), g.symptom))


def _own_cases(g: Group, executor: _Executor, report: GroupReport, out, *, budget: float) -> None:
    """No minimal case: the group's own smallest failing cases, run again alone. The first failing
    alike is reduced (suites/case_shrink.py) to the group's example: shrunk when the reductions ran
    to the end, unshrunk when the budget ran out first; none failing alike makes the group not
    reproducible."""
    from opconform import specs

    searched = f"{report.status} ({report.detail})" if report.status == "not-reproduced" else \
        f"no failing case found in {report.examples} cases searched"
    own = sorted(g.failing, key=lambda r: case_size(Case.from_json(r.case)))[:OWN_CASES]
    for r in own:
        case = Case.from_json(r.case)
        fresh, runs = executor.fails_alike(specs.load(r.spec_id), case, g)
        if fresh is not None:
            _reduce_own(g, specs.load(r.spec_id), case, fresh, runs, executor, report, out, searched, budget)
            return
    report.status = "not-reproducible"
    where = " alone in a fresh worker" if g.verdict in (Verdict.CRASH.value, Verdict.TIMEOUT.value) else ""
    report.detail = (f"{searched}; none of the group's {len(own)} smallest cases failed alike again, each run"
                     f"{where} {RERUNS} times: the failure comes and goes (a crash from damage earlier cases "
                     f"left in the process, or unwritten memory that held the right value)")[:400]


def _reduce_own(g: Group, spec, case: Case, fresh: dict, runs: int, executor: _Executor, report: GroupReport, out,
                searched: str, budget: float) -> None:
    """Reduce the group's own case `case` (it failed alike: `fresh`, in `runs` runs) and record the result."""
    from opconform.suites import case_shrink

    def alike(c: Case) -> bool:
        verdict, key = executor.answer(spec, c)
        return verdict.value == g.verdict and (g.symptom is None or symptoms.alike(key, g.symptom))

    own_id = case.id
    smaller, tried, exhausted = case_shrink.reduce_case(spec, case, alike, kind=g.kind, relation=g.relation, budget=budget)
    report.examples += tried
    if smaller is not case:
        again, again_runs = executor.fails_alike(spec, smaller, g)
        if again is not None:
            case, fresh, runs = smaller, again, again_runs
            how = "no single reduction of it fails alike" if exhausted else "the budget ran out reducing it further"
            _record(g, case, fresh, runs, report, out)
            report.detail = f"{searched}; reduced from the group's own case {own_id} ({how}; {tried} tried)"[:400]
            return
        exhausted = False  # the reduction did not fail alike again: the own case is not shown minimal
    if exhausted:
        _record(g, case, fresh, runs, report, out)
        report.detail = (f"{searched}; the group's own case {own_id}: no single reduction of it fails alike "
                         f"({tried} tried), so it is minimal as it is")[:400]
        return
    report.status, report.case_id, report.size = "unshrunk", own_id, case_size(case)
    report.detail = (f"{searched}; the group's own case {own_id} fails alike when run again ({_runs(runs)}); "
                     f"no smaller case failed alike before the budget ran out ({tried} tried): it is the example, "
                     f"not shrunk")[:400]


def _runs(n: int) -> str:
    return "on the first run" if n == 1 else f"on run {n} of {RERUNS}"


def _record(g: Group, case: Case, fresh: dict | None, runs: int, report: GroupReport, out) -> None:
    report.case_id, report.size = case.id, case_size(case)
    if fresh is None:
        report.status = "not-reproduced"
        report.detail = f"the minimal case {report.case_id} did not fail alike in {runs} runs"
        report.case_id = None
        return
    fresh["backend"] = g.backend  # the name the run recorded, whatever reference reached the backend
    fresh["extra"] = {**fresh["extra"], "shrunk": True, "shrunk_from": report.shrunk_from}
    if runs > 1:
        fresh["extra"]["reproduced"] = f"{_runs(runs)} (a failure that comes and goes)"
        report.detail = f"reproduced {_runs(runs)}"
    out.write(json.dumps(Result.from_json(fresh).to_json(), sort_keys=True) + "\n")
    out.flush()
    report.status = "shrunk"
