"""The stress profile (`opconform run --profile stress`): speed and memory bugs.

For each spec version whose spec has a `stress:` block, and each worst case it names, a ladder of
sizes (generator/stress.py: 1e2 .. 1e7, two a decade) is climbed one rung at a time. Each rung is
drawn, timed on the oracle and on the backend (median of warm runs) and judged in a worker of the
pool (suites/stress_worker.py), so a backend that hangs or dies at 1e7 costs that rung (timeout,
crash) and not the run. The ladder stops after a rung whose backend or oracle median passes the
cap, or that did not give outputs; then its timings are judged (suites/stress_fit.py) and one more
line, the ladder's, says `slow` or `pass` with the table of sizes, times and peak memory.

Lines go to DIR/results.jsonl as they come, like any run: a rung's line has the rung's verdict (its
outputs against the spec) and extra.stress, without tensors; the ladder's line has
extra.stress_ladder. A resumed run keeps the rungs recorded and climbs on from the last one.

Timings are taken one rung at a time, whatever --jobs says: two rungs side by side would time
each other on a small machine.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from queue import Queue
from time import perf_counter

from opconform import backends
from opconform.model import Result, SpecVersion, Verdict
from opconform.specs.loader import check_pattern
from opconform.suites import plan, record, results, runner
from opconform.suites.pool import WorkerPool
from opconform.suites.stress_fit import Rung, Thresholds, judge
from opconform.suites.stress_worker import RungTask, main as worker_main, rung_id

# a rung with one of these verdicts gave outputs: its times count and the ladder may climb on
ANSWERED = {v.value for v in (Verdict.PASS, Verdict.MISMATCH, Verdict.WRONG_SHAPE, Verdict.WRONG_DTYPE,
                              Verdict.MISSING_OUTPUT)}


@dataclass(frozen=True)
class Settings:
    start: int = 100
    stop: int = 10**7
    per_decade: int = 2
    cap: float = 0.5  # seconds: a rung whose backend or oracle median passes this is its ladder's last
    thresholds: Thresholds = field(default_factory=Thresholds)

    def sizes(self) -> list[int]:
        from opconform import generator

        return generator.stress_sizes(self.start, self.stop, self.per_decade)


def ladder_id(spec_id: str, case: str, seed: int) -> str:
    return hashlib.sha256(f"stress-ladder|{spec_id}|{case}|{seed}".encode()).hexdigest()[:16]


@dataclass
class Ladder:
    spec: SpecVersion
    case: str
    sizes: list[int]
    seed: int
    cap: float
    rows: list[dict] = field(default_factory=list)  # the rung lines so far, in ladder order
    stopped: str = ""  # why the ladder ended ("" while it climbs)

    @property
    def id(self) -> str:
        return ladder_id(self.spec.id, self.case, self.seed)

    def task(self, step: int) -> RungTask:
        return RungTask(self.spec.id, self.case, self.sizes[step], step, self.seed, self.cap)

    def add(self, row: dict) -> None:
        """Take a rung's line; the ladder stops after it where it says so."""
        self.rows.append(row)
        self.stopped = stop_reason(row, self.cap, len(self.rows) == len(self.sizes))

    def next_task(self) -> RungTask | None:
        return None if self.stopped else self.task(len(self.rows))


def stop_reason(row: dict, cap: float, last: bool) -> str:
    """Why a ladder ends after this rung ("" when it climbs on)."""
    s = row.get("extra", {}).get("stress", {})
    n, verdict = s.get("n"), row["verdict"]
    if verdict not in ANSWERED:
        return f"{verdict} at n = {n:,}"
    if s.get("backend_seconds") is None:
        return f"no timed run at n = {n:,}"
    for who in ("backend", "oracle"):
        if s[f"{who}_seconds"] >= cap:
            return f"the {who} took {s[f'{who}_seconds']:.3g} s at n = {n:,}, past the {cap:g} s cap"
    return "the top of the ladder" if last else ""


def rungs_of(rows: list[dict]) -> list[Rung]:
    """The measurements of a ladder's rung lines, for stress_fit.judge: the fastest warm run of
    each (the median beside it); rungs not timed, e.g. a timeout, are left out: they hold no time."""
    out = []
    for row in rows:
        s = row.get("extra", {}).get("stress", {})
        if s.get("backend_seconds") is not None:
            out.append(Rung(s["n"], s.get("backend_fastest", s["backend_seconds"]), s.get("oracle_fastest", s.get("oracle_seconds")),
                            s.get("backend_peak_bytes"), s.get("oracle_peak_bytes"), s.get("io_bytes", 0), row["verdict"],
                            s["backend_seconds"], s.get("oracle_seconds")))
    return out


def ladder_result(ladder: Ladder, backend: str, thresholds: Thresholds) -> dict | None:
    """The ladder's line: `slow` with its reasons, or `pass`, and the table as evidence; None when
    no rung was timed (the rung lines say why: refused, crashed, ...)."""
    rungs = rungs_of(ladder.rows)
    if not rungs:
        return None
    j = judge(rungs, ladder.spec.stress.complexity, thresholds)
    table = [{**r.row(), "step": k} for k, r in enumerate(rungs)]
    head = "slow: " + "; ".join(j.reasons) + ". " if j.slow else ""
    top = rungs[-1]
    return Result(
        case_id=ladder.id, spec_id=ladder.spec.id, backend=backend, verdict=Verdict.SLOW if j.slow else Verdict.PASS,
        detail=f"{head}{j.summary} [{ladder.spec.operator}-{ladder.spec.since} stress case {ladder.case}, "
               f"{len(rungs)} sizes to n = {top.n:,}; stopped: {ladder.stopped}]",
        backend_seconds=top.backend_seconds or 0.0,
        extra={"label": f"stress:{ladder.case}", "expected_kind": "outputs",
               "stress_ladder": {"case": ladder.case, "complexity": ladder.spec.stress.complexity, "stopped": ladder.stopped,
                                 "cap": ladder.cap, "thresholds": asdict(thresholds), "table": table, **j.as_dict()}},
    ).to_json()


def lost_result(task: RungTask, backend: str, status: str, message: str) -> dict:
    """The line of a rung whose worker had to be killed (timeout, crash) or failed in opconform."""
    verdict = Verdict(status)
    return Result(
        case_id=task.id, spec_id=task.spec_id, backend=backend, verdict=verdict,
        detail=f"n = {task.n:,} ({task.case}): {message}", backend_message=message,
        extra={"label": f"stress:{task.case}", "expected_kind": "outputs",
               "stress": {"ladder": task.case, "n": task.n, "step": task.step, "seed": task.seed, "cap": task.cap,
                          "backend_seconds": None, "oracle_seconds": None}},
    ).to_json()


def plan_ladders(versions: list[SpecVersion], settings: Settings, seed: int) -> list[Ladder]:
    sizes = settings.sizes()
    return [Ladder(v, c.name, sizes, seed, settings.cap) for v in versions for c in v.stress.cases]


def _refuse_options(config: runner.RunConfig) -> None:
    for flag, value in (("--shard", config.shard), ("--cases-from", config.cases_from)):
        if value:
            raise ValueError(f"{flag} does not apply to --profile stress: a ladder is climbed whole, on cases drawn from the spec's stress hints")


class _Climb:
    """The ladders climbed in the pool, one rung at a time: each result is written, joins its
    ladder, and decides what the pool gets next (through `feed`)."""

    def __init__(self, ladders: list[Ladder], writer: results.ResultsWriter, summary: runner.RunSummary,
                 listener: runner.Listener, backend: str, thresholds: Thresholds):
        self.pending, self.current = iter(ladders), None
        self.writer, self.summary, self.listener = writer, summary, listener
        self.backend, self.thresholds = backend, thresholds
        self.feed: Queue = Queue()

    def write(self, j: record.Judged) -> None:
        self.writer.write(j.case_id, j.line)
        s = self.summary
        s.counts[j.spec_id][j.verdict] += 1
        s.cases_run += 1
        s.backend_seconds, s.build_seconds = s.backend_seconds + j.backend_seconds, s.build_seconds + j.build_seconds
        s.harness_seconds += j.harness_seconds
        self.listener.result(j.spec_id, j.verdict)

    def advance(self) -> None:
        """Feed the next rung: of this ladder, else of the next unfinished one (a finished
        ladder's own line is written on the way); None to the feed when no ladder is left."""
        while True:
            ladder = self.current
            if ladder is not None:
                task = ladder.next_task()
                if task is not None:
                    self.feed.put(([[(ladder.spec.id, task)]], {ladder.spec.id: ladder.spec}))
                    return
                if ladder.id not in self.writer.done:
                    line = ladder_result(ladder, self.backend, self.thresholds)
                    if line is not None:
                        self.write(record.Judged.of(line))
                    else:
                        self.summary.notes[ladder.spec.id] = f"stress case {ladder.case}: no size timed ({ladder.stopped})"
            self.current = next(self.pending, None)
            if self.current is None:
                self.feed.put(None)
                return

    def on_result(self, j: record.Judged) -> None:
        self.write(j)
        self.current.add(j.result())
        self.advance()

    def on_lost(self, item: tuple[str, RungTask], status: str, message: str) -> None:
        self.on_result(record.Judged.of(lost_result(item[1], self.backend, status, message)))

    def on_harness_error(self, case_id: str, spec_id: str, message: str) -> None:
        self.summary.harness_errors.append({"case_id": case_id, "spec_id": spec_id, "message": message})


def _stressed(config: runner.RunConfig, backend: backends.Backend, summary: runner.RunSummary) -> list[SpecVersion]:
    """The selected spec versions this backend takes that have stress cases; the others get a note."""
    versions, bad_files = plan.select(config.spec_pattern)
    summary.generation_errors.update(bad_files)
    if not versions:
        raise ValueError(f"--spec {config.spec_pattern!r} matches no spec version; see `opconform validate`")
    summary.not_applicable = [v.id for v in versions if v.dialect not in backend.dialects]
    out = []
    for v in versions:
        if v.dialect not in backend.dialects:
            continue
        reason = "its spec has no stress block" if v.stress is None else backend.accepts(v)
        if reason:
            summary.notes[v.id] = f"not stressed: {reason}"
        else:
            out.append(v)
    return out


def _resume(ladders: list[Ladder], recorded: dict[str, dict]) -> None:
    """Each ladder takes its rungs recorded by an earlier session, in order, up to the first missing."""
    for ladder in ladders:
        for n in ladder.sizes:
            row = recorded.get(rung_id(ladder.spec.id, ladder.case, n, ladder.seed))
            if row is None or ladder.stopped:
                break
            ladder.add(row)


def run(config: runner.RunConfig, listener: runner.Listener | None = None, settings: Settings | None = None) -> runner.RunSummary:
    """The stress profile's run: like runner.run (same DIR layout, resume, summary), with ladders."""
    listener = listener or runner.Listener()
    settings = settings or Settings()
    _refuse_options(config)
    check_pattern(config.spec_pattern)
    backend = backends.get(config.backend)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    with results.ResultsWriter(out, resume=config.resume) as writer:
        meta = results.read_run(out) if config.resume and (out / results.RUN).exists() else runner.start_meta(config, backend)
        meta.update(finished=None, stress={"start": settings.start, "stop": settings.stop, "per_decade": settings.per_decade,
                                           "cap_seconds": settings.cap, "thresholds": asdict(settings.thresholds)})
        results.write_run(out, meta)
        summary = runner.RunSummary(backend=backend.name, cases_skipped=len(writer.done))
        for r in writer.previous:
            summary.counts[r["spec_id"]][r["verdict"]] += 1
        stressed = _stressed(config, backend, summary)
        listener.planning(len(stressed))
        ladders = plan_ladders(stressed, settings, config.seed)
        _resume(ladders, {r["case_id"]: r for r in writer.previous})
        listener.executing(sum(len(lad.sizes) + 1 for lad in ladders), summary.cases_skipped)
        climb = _Climb(ladders, writer, summary, listener, backend.name, settings.thresholds)
        pool = WorkerPool(backend.ref or config.backend, jobs=1, timeout=config.timeout, memory_limit_mb=config.memory_limit_mb,
                          shard=None, on_result=climb.on_result, on_lost=climb.on_lost,
                          on_harness_error=climb.on_harness_error, worker_main=worker_main)
        t0 = perf_counter()
        climb.advance()
        stats = pool.run([], {}, feed=climb.feed)
        summary.execution_seconds, summary.workers_started = perf_counter() - t0, stats.workers_started
        summary.models_built = stats.models_built
        meta.update(finished=results.now(), backend_version=stats.backend_version or meta.get("backend_version"),
                    cases=sum(summary.totals.values()), verdicts=dict(summary.totals), notes=summary.notes,
                    generation_errors=summary.generation_errors, harness_errors=summary.harness_errors[:100])
        results.write_run(out, meta)
    listener.finished(summary)
    return summary
