"""Backend-aware budget: before drawing, ask the backend which factor values it implements.

    survey = probe.survey(backend, "onnxruntime", spec_ids, jobs=2, timeout=60)
    survey.excluded()             # {spec id: ((factor, value index), ...)}: left out of the rows
    survey.unsupported_factors()  # {spec id: [{"factor": "type:T", "value": "uint8", "message": ...}]}

One probe per spec version and factor value: a small valid case of its probe row, that value
pinned and every other factor at the value backends implement most (generator/probe_rows.py).
The round-one probe cases are also the first rows of the run's covering array: the run plans them
as cases (`drawn`, handed to generation) and records the backend's answers to them as their
results (`judged`) instead of running them twice.

A value counts as not implemented only when its probe comes back "unsupported" and a *control*
does not: the same row with that one factor set to a value whose probe passed through (not
unsupported). Mostly the control is the baseline, already run; where the constraints moved other
factors, or the baseline itself was unsupported, the control is drawn and run in a second round.
So an "unsupported" caused by another factor of the probe is never blamed on the value. A probe
that crashes the backend or times out says nothing (the value stays: a crash is a finding for
the run, not a reason to skip).

Probes run in the same killable worker pool as the run (suites/pool.py), and are drawn in
killable processes (suites/taskpool.py). Answers are cached per backend version and spec file
(suites/probe_cache.py), with the probe case of each unsupported value: the run records that case
as its one piece of evidence (an ordinary result, verdict unsupported). Everything is seeded by
the spec id and the row, never by time or machine: the same backend version excludes the same
values and keeps the same evidence case everywhere.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from queue import Queue
from threading import Thread
from time import perf_counter
from typing import Any, Callable, Mapping, Sequence

from opconform.model import Case
from opconform.suites import probe_cache, taskpool

Row = tuple[int, ...]  # one value index per factor, in factor order


# ------------------------------------------------------------ what is found
@dataclass(frozen=True)
class Finding:
    """A factor value the backend does not implement, with its evidence."""

    factor: str  # factor name, e.g. "type:T"
    index: int  # index of the value in the factor's values
    value: str  # the value as shown, e.g. "uint8"
    message: str  # the first line of the backend's answer to the probe
    case: Mapping[str, Any]  # Case.to_json() of the probe case

    def record(self) -> dict:
        """The entry in run.json's "unsupported_factors" (a report reads exactly these keys)."""
        return {"factor": self.factor, "value": self.value, "message": self.message}

    def to_json(self) -> dict:
        return {**self.record(), "index": self.index, "case": dict(self.case)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Finding":
        return cls(d["factor"], int(d["index"]), d["value"], d["message"], d["case"])


@dataclass
class Survey:
    """The answers for a run's spec versions."""

    findings: dict[str, list[Finding]] = field(default_factory=dict)  # spec id -> unsupported values
    probes: int = 0  # probe cases run in this session (0: every answer came from the cache)
    cached: int = 0  # spec versions answered from the cache
    asked: int = 0  # spec versions probed in this session
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)  # spec id -> why it could not be probed
    # spec id -> {probe row: case or None}: round one's cases, the seeds of the run's rows
    drawn: dict[str, dict[Row, Case | None]] = field(default_factory=dict)
    judged: dict[tuple[str, str], Any] = field(default_factory=dict)  # (spec id, case id) -> record.Judged

    def excluded(self) -> dict[str, tuple[tuple[str, int], ...]]:
        return {sid: tuple((f.factor, f.index) for f in fs) for sid, fs in self.findings.items() if fs}

    def unsupported_factors(self) -> dict[str, list[dict]]:
        return {sid: [f.record() for f in fs] for sid, fs in self.findings.items() if fs}

    def evidence(self) -> dict[str, list[Case]]:
        """One case per unsupported value: its probe case."""
        return {sid: [Case.from_json(f.case) for f in fs] for sid, fs in self.findings.items() if fs}


# ------------------------------------------------------------ probe rows
def shown(value: Any) -> str:
    """A factor value as one short word: uint8, 1, <omitted>, True, (True, False)."""
    return value if isinstance(value, str) else repr(value)


@dataclass
class Drawn:
    """What a drawing process sends back for one spec version (everything picklable)."""

    spec_id: str
    names: list[str] = field(default_factory=list)  # factor names, in factor order
    order: list[list[int]] = field(default_factory=list)  # preference order per factor
    shown: list[list[str]] = field(default_factory=list)  # each factor value as shown
    probes: list[tuple[str, int, Row]] = field(default_factory=list)  # (factor, value index, probe row)
    cases: dict[Row, Case | None] = field(default_factory=dict)  # drawn case per row (None: none held it)
    skip: str | None = None  # why this spec version is not probed (no oracle, no factors)


def draw(spec_id: str, rows: Sequence[Row] | None = None) -> Drawn:
    """Round one (rows None): the probe row of every factor value (generator/probe_rows.py), and
    a case for each distinct row. Round two: a case for each of `rows` the constraints allow (the
    controls)."""
    from opconform import oracle, specs
    from opconform.generator import constraints, draw_probes, factor_preference, probe_assignment, rows_to_probe, spec_factors

    from opconform.suites.plan import quietly

    out = Drawn(spec_id)
    with quietly():
        spec = specs.load(spec_id)
        if not oracle.has_oracle(spec):
            out.skip = "no oracle: no valid cases to budget"
            return out
        fs = spec_factors(spec)
        if not fs:
            out.skip = "no factors"
            return out
        out.names = [f.name for f in fs]
        out.order = [factor_preference(f) for f in fs]
        out.shown = [[shown(v) for v in f.values] for f in fs]
        if rows is None:
            out.probes = rows_to_probe(spec)
            rows = list(dict.fromkeys(r for _, _, r in out.probes))
        else:
            cs = constraints(spec)
            rows = [r for r in rows if cs(probe_assignment(fs, r))]
        out.cases = draw_probes(spec, oracle.expectation, rows)
    return out


# ------------------------------------------------------------ deciding
def _first_line(message: str) -> str:
    line = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    return line.split(" | ")[0][:300]  # short_message joins a backend's lines with " | "


def through(verdict: str) -> bool:
    """The backend ran the case and answered (any verdict but unsupported): a crash, a timeout or
    opconform's own failure says nothing either way."""
    return verdict not in ("", "unsupported", "crash", "timeout", "harness-error")


@dataclass
class _Spec:
    """One spec version under survey: its rows, their answers, and what is decided."""

    drawn: Drawn
    answers: dict[Row, tuple[str, str]] = field(default_factory=dict)  # row -> (verdict, backend message)
    controls: dict[tuple[str, int], Row] = field(default_factory=dict)  # (factor, index) -> control row to run

    def passed(self, k: int, i: int) -> bool:
        """Some probe holding value i of factor k passed through the backend."""
        return any(r[k] == i and through(v) for r, (v, _) in self.answers.items())

    def decide(self, final: bool) -> list[Finding]:
        """The values found unsupported; unless final, the controls still to run are noted instead."""
        found = []
        for name, i, row in self.drawn.probes:
            verdict, message = self.answers.get(row, ("", ""))
            if verdict != "unsupported":
                continue
            k = self.drawn.names.index(name)
            control = self.controls.get((name, i)) or self._control(k, i, row)
            if control is None:
                continue
            if control not in self.answers:
                if not final:
                    self.controls[(name, i)] = control
                continue
            if through(self.answers[control][0]):
                case = self.drawn.cases[row]
                found.append(Finding(name, i, self.drawn.shown[k][i], _first_line(message), case.to_json()))
        return found

    def _control(self, k: int, i: int, row: Row) -> Row | None:
        """The probe row with factor k set to the first value (in preference order) whose probe passed."""
        for j in self.drawn.order[k]:
            if j != i and self.passed(k, j):
                return row[:k] + (j,) + row[k + 1:]
        return None


def survey(backend: Any, backend_ref: str, spec_ids: Sequence[str], *, jobs: int, timeout: float,
           memory_limit_mb: int | None = None, generation_timeout: float = 300.0,
           use_cache: bool = True) -> Survey:
    """Probe every spec version of `spec_ids` the cache does not answer for this backend version;
    cache the answers. backend: the parent's Backend object (name, version); backend_ref: what
    workers load."""
    t0 = perf_counter()
    out = Survey()
    name, version = backend.name, backend.version()
    todo = []
    for sid in spec_ids:
        hit = probe_cache.load(name, version, sid) if use_cache else None
        if hit is not None:
            out.findings[sid] = [Finding.from_json(d) for d in hit.get("unsupported", [])]
            out.cached += 1
        else:
            todo.append(sid)
    under: dict[str, _Spec] = {}
    # round one streams: each spec version's probes go to the backend while the next are drawn
    out.probes += _draw_and_run(todo, jobs, generation_timeout, under, out, backend_ref, timeout, memory_limit_mb)
    out.drawn = {sid: dict(s.drawn.cases) for sid, s in under.items() if s.drawn.skip is None}
    for s in under.values():
        s.decide(final=False)
    second = [sid for sid, s in under.items() if s.controls]
    if second:  # the controls round one did not already run
        rows = {sid: list(dict.fromkeys(under[sid].controls.values())) for sid in second}
        again: dict[str, _Spec] = {}
        _draw_all(second, rows, jobs, generation_timeout, again, out)
        for sid, s in again.items():
            under[sid].drawn.cases.update(s.drawn.cases)
        out.probes += _run_all(under, {sid: list(s.drawn.cases.items()) for sid, s in again.items()},
                               backend_ref, jobs, timeout, memory_limit_mb, out.judged)
    for sid, s in under.items():
        found = s.decide(final=True)
        out.findings[sid] = found
        if sid not in out.errors:
            probe_cache.store(name, version, sid, {"spec_id": sid, "backend": name, "backend_version": version,
                                                   "probes": len(s.answers), "unsupported": [f.to_json() for f in found]})
    out.asked = len(todo)
    out.seconds = perf_counter() - t0
    return out


def _draw_all(spec_ids: Sequence[str], rows: Mapping[str, list[Row]] | None, jobs: int, timeout: float,
              into: dict[str, _Spec], out: Survey, then: Callable[[str], None] = lambda sid: None) -> None:
    """Draw every spec version's probe rows (rows None) or the given rows, in killable processes;
    then(spec id) after each spec version that has something to ask."""
    def done(i: int, d: Drawn) -> None:
        if d.skip is None or rows is None:  # nothing to ask: an empty answer is cached like any other
            into[d.spec_id] = _Spec(d)
            then(d.spec_id)

    def failed(i: int, why: str) -> None:
        out.errors[spec_ids[i]] = why  # not cached: a later run tries again

    calls = [(sid, None if rows is None else rows[sid]) for sid in spec_ids]
    taskpool.run(draw, calls, jobs=jobs, timeout=timeout, on_done=done, on_failed=failed)


class _Asked:
    """The probe cases sent to the backend, and which rows each one's answer goes to."""

    def __init__(self, under: Mapping[str, _Spec], judged: dict[tuple[str, str], Any]):
        self.under, self.judged = under, judged
        self.where: dict[tuple[str, str], list[Row]] = {}

    def items(self, cases: Mapping[str, list[tuple[Row, Case | None]]]) -> list[Any]:
        """The cases not asked yet (one per case id: rows sharing a case share its answer)."""
        items = []
        for sid, pairs in cases.items():
            for row, case in pairs:
                if case is None:
                    continue
                key = (sid, case.id)
                if key not in self.where:
                    items.append((sid, case))
                self.where.setdefault(key, []).append(row)
        return items

    def answer(self, sid: str, case_id: str, verdict: str, message: str) -> None:
        for row in self.where.get((sid, case_id), ()):
            self.under[sid].answers[row] = (verdict, message)

    def pool(self, backend_ref: str, jobs: int, timeout: float, memory_limit_mb: int | None) -> Any:
        from opconform.suites.pool import WorkerPool

        def on_result(j: Any) -> None:
            self.judged[(j.spec_id, j.case_id)] = j
            self.answer(j.spec_id, j.case_id, j.verdict, json.loads(j.line).get("backend_message", ""))

        def on_lost(item: Any, status: str, message: str) -> None:
            self.answer(item[0], item[1].id, status, message)  # a crash or timeout: not "unsupported"

        def on_harness_error(case_id: str, spec_id: str, message: str) -> None:
            self.answer(spec_id, case_id, "harness-error", message)

        return WorkerPool(backend_ref, jobs=jobs, timeout=timeout, memory_limit_mb=memory_limit_mb, shard=None,
                          on_result=on_result, on_lost=on_lost, on_harness_error=on_harness_error)


def _batches(items: list[Any]) -> list[list[Any]]:
    from opconform.suites import plan

    return plan.batches(plan.group(items), 32)  # one probe per model signature at most, whole groups as in the run


def _draw_and_run(spec_ids: Sequence[str], jobs: int, generation_timeout: float, under: dict[str, _Spec],
                  out: Survey, backend_ref: str, timeout: float, memory_limit_mb: int | None) -> int:
    """Round one: draw each spec version's probes in a thread while the pool runs those already
    drawn (drawing is Python in its own processes, running is the backend in the pool's)."""
    from opconform import specs

    asked = _Asked(under, out.judged)
    feed: Queue = Queue()
    sent = [0]
    failure: list[BaseException] = []

    def then(sid: str) -> None:
        items = asked.items({sid: list(under[sid].drawn.cases.items())})
        if items:
            sent[0] += len(items)
            feed.put((_batches(items), {sid: specs.load(sid)}))

    def drawing() -> None:
        try:
            _draw_all(spec_ids, None, jobs, generation_timeout, under, out, then)
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            failure.append(e)
        finally:
            feed.put(None)

    thread = Thread(target=drawing, name="probe-drawing", daemon=True)
    thread.start()
    try:
        asked.pool(backend_ref, jobs, timeout, memory_limit_mb).run([], feed=feed)
    finally:
        thread.join()
    if failure:
        raise failure[0]
    return sent[0]


def _run_all(under: Mapping[str, _Spec], cases: Mapping[str, list[tuple[Row, Case | None]]], backend_ref: str,
             jobs: int, timeout: float, memory_limit_mb: int | None, judged: dict[tuple[str, str], Any]) -> int:
    """Run the drawn cases in the run's worker pool; each answer goes to its spec's rows."""
    from opconform import specs

    asked = _Asked(under, judged)
    items = asked.items(cases)
    if items:
        asked.pool(backend_ref, jobs, timeout, memory_limit_mb).run(_batches(items), {sid: specs.load(sid) for sid in cases})
    return len(items)


def summary_lines(backend: str, findings: Mapping[str, Sequence[Mapping[str, str]]], limit: int = 20) -> list[str]:
    """One line per spec version with unsupported factor values, its values grouped by factor:
    `onnxruntime: onnx::Unique-11 does not implement type:T=uint8, uint16 (2 values)`; the first
    `limit` spec versions, then how many more, and the count."""
    items = [(sid, fs) for sid, fs in sorted(findings.items()) if fs]
    if not items:
        return []
    total = sum(len(fs) for _, fs in items)
    lines = [f"unsupported factor values (not drawn; one case each kept as evidence): {total} in {len(items)} spec versions"]
    for sid, fs in items[:limit]:
        by_factor: dict[str, list[str]] = {}
        for f in fs:
            by_factor.setdefault(f["factor"], []).append(f["value"])
        parts = [f"{name}={', '.join(values[:8])}{', ...' if len(values) > 8 else ''}" for name, values in by_factor.items()]
        count = f" ({len(fs)} values)" if len(fs) > 1 else ""
        lines.append(f"  {backend}: {sid} does not implement {'; '.join(parts)}{count}")
    if len(items) > limit:
        lines.append(f"  ... {len(items) - limit} more spec versions (run.json: unsupported_factors)")
    return lines
