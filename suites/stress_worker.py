"""The stress profile's worker process: one rung of a ladder at a time. It draws the rung's inputs
itself (from the spec's stress hints: only the recipe crosses the pipe, not 1e7 elements), times
the oracle and the backend on them (median of warm runs, peak memory of each), judges the
backend's outputs, and sends back one result line without the tensors (too big to record; the
recipe in extra.stress draws them again).

It speaks the worker pool's protocol (suites/worker.py): a hang, a crash or a memory blow-up
kills this process, and the pool reports the rung as timeout or crash.

Peak memory is the process' peak resident set (VmHWM) during a run, above its resident set just
before: the kernel's high-water mark is reset before each run through /proc/self/clear_refs ("5").
Where that is refused, the growth of ru_maxrss over the run is recorded instead (a lower bound:
it shows only peaks above every earlier one); extra.stress.memory_method says which.
"""
from __future__ import annotations

import hashlib
import resource
from dataclasses import dataclass, replace
from statistics import median
from time import perf_counter
from typing import Any, Callable

from opconform.model import Alternative, Case, Expectation, Result, SpecVersion, Verdict


@dataclass(frozen=True)
class RungTask:
    """One rung to measure: spec version, worst case, size, seed; `cap` the seconds one run may
    take before the ladder stops (it also bounds how many runs are timed)."""

    spec_id: str
    case: str  # the spec's stress case name
    n: int
    step: int  # index on the ladder
    seed: int = 0
    cap: float = 0.5

    @property
    def id(self) -> str:
        """The rung's case id in results.jsonl (stable: a resumed run finds it)."""
        return rung_id(self.spec_id, self.case, self.n, self.seed)

    @property
    def ladder(self) -> str:
        return f"{self.spec_id}/{self.case}"


def rung_id(spec_id: str, case: str, n: int, seed: int) -> str:
    return hashlib.sha256(f"stress|{spec_id}|{case}|{n}|{seed}".encode()).hexdigest()[:16]


MIN_RUNS, MAX_RUNS = 3, 25
SETTLE_SECONDS = 0.05  # fast runs are repeated until they add up to this, for a steady median


class Memory:
    """Peak resident memory of the process over a stretch of code, above where it started."""

    def __init__(self) -> None:
        self.method = "vmhwm-reset" if self._reset() else "ru_maxrss-growth"

    @staticmethod
    def _reset() -> bool:
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    @staticmethod
    def _status(key: str) -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        return 0

    def start(self) -> int:
        if self.method == "vmhwm-reset":
            self._reset()
            return self._status("VmRSS:")
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def peak(self, start: int) -> int:
        if self.method == "vmhwm-reset":
            return max(self._status("VmHWM:") - start, 0)
        return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start, 0)


def repeat(run: Callable[[], tuple[float, Any]], budget: float, memory: Memory) -> tuple[list[float], int, Any]:
    """Run until MIN_RUNS runs add up to SETTLE_SECONDS, or the runs take `budget` seconds, or
    MAX_RUNS: (seconds of each run, the largest peak memory of a run, the last run's value).
    `run` returns (its seconds, its value): a backend counts its run call, not model builds."""
    times: list[float] = []
    peak, value = 0, None
    while True:
        start = memory.start()
        seconds, value = run()
        peak = max(peak, memory.peak(start))
        times.append(seconds)
        total = sum(times)
        if len(times) >= MAX_RUNS or total >= budget or (len(times) >= MIN_RUNS and total >= SETTLE_SECONDS):
            return times, peak, value


def _timed(fn: Callable[[], Any]) -> Callable[[], tuple[float, Any]]:
    def run() -> tuple[float, Any]:
        t0 = perf_counter()
        value = fn()
        return perf_counter() - t0, value
    return run


def measure(backend: Any, spec: SpecVersion, task: RungTask, shard: str | None = None) -> dict:
    """The result line (a dict for results.jsonl) of one rung: the verdict of the backend's
    outputs, and in extra.stress the timings and peak memory of backend and oracle."""
    from opconform import generator, oracle
    from opconform.suites import record, verdicts

    t_start = perf_counter()
    hint = next(c for c in spec.stress.cases if c.name == task.case)
    inputs, attributes, asked = generator.stress_draw(spec, hint, task.n, task.seed)
    memory = Memory()
    budget = task.cap  # a run that takes the cap is timed once after the warm-up: it is the ladder's last
    oracle_times, oracle_peak, outs = repeat(_timed(lambda: oracle.evaluate(spec, inputs, attributes)), budget, memory)
    defaults = oracle.resolve_policies(spec, None)
    case = Case(spec.id, attributes, tuple(inputs), asked, Expectation("outputs", (Alternative(defaults, outs),)),
                task.seed, label=f"stress:{task.case}")
    outcome = backend.execute(spec, case)  # warm-up: builds the model (or finds it built) and runs once
    build_seconds, first_seconds = outcome.build_seconds, outcome.backend_seconds
    times: list[float] = []
    peak = None
    if outcome.status == "ok":
        times, peak, outcome = repeat(lambda: ((o := backend.execute(spec, case)).backend_seconds, o), budget, memory)
        if outcome.status != "ok":  # refused or failed on a later run: that is the answer
            times, peak = [], None
    verdict, detail, matched = verdicts.judge(spec, case, outcome)
    if verdict not in (Verdict.PASS, Verdict.ERROR, Verdict.UNSUPPORTED):
        # only the default choices were computed: judge again against every allowed outcome
        case = replace(case, expected=oracle.expectation(spec, inputs, attributes))
        verdict, detail, matched = verdicts.judge(spec, case, outcome)
    backend_seconds = median(times) if times else None
    io_bytes = generator.stress_nbytes(inputs) + generator.stress_nbytes(o for o, a in zip(outs, asked) if a)
    stress = {
        "ladder": task.case, "n": task.n, "step": task.step, "seed": task.seed, "cap": task.cap,
        "backend_seconds": backend_seconds, "backend_fastest": min(times) if times else None, "backend_runs": times,
        "first_run_seconds": first_seconds,
        "oracle_seconds": median(oracle_times), "oracle_fastest": min(oracle_times), "oracle_runs": oracle_times,
        "backend_peak_bytes": peak, "oracle_peak_bytes": oracle_peak, "memory_method": memory.method,
        "io_bytes": io_bytes, "input_elements": generator.stress_elements(inputs),
        "output_elements": generator.stress_elements(o for o, a in zip(outs, asked) if a),
    }
    timing = f"; backend {backend_seconds:.4g} s (median of {len(times)}), oracle {median(oracle_times):.4g} s" \
        if backend_seconds is not None else ""
    result = Result(
        case_id=task.id, spec_id=spec.id, backend=backend.name, verdict=verdict,
        detail=f"n = {task.n:,} ({task.case}){timing}: {detail}", backend_message=outcome.message,
        matched_policies=matched, backend_seconds=backend_seconds or 0.0, build_seconds=build_seconds,
        case=None, got=None,  # 1e7 elements are not recorded: extra.stress is the recipe
        extra={**record.extra(spec, case, shard), "stress": stress},
    ).to_json()
    result["harness_seconds"] = max(perf_counter() - t_start - sum(times) - first_seconds - build_seconds, 0.0)
    return result


def main(conn: Any, backend_ref: str, shard: str | None, phase_flag: Any, position: Any = None) -> None:
    """The pool's worker entry point (suites/pool.py, worker_main=this): batches of
    (spec id, RungTask), one result message per rung."""
    from opconform import specs
    from opconform.suites import record, worker

    backend = worker.start(conn, backend_ref, phase_flag)
    if backend is None:
        return
    known: dict = {}
    for sent, batch, *_ in worker.messages(conn):
        known.update(sent)
        for k, (spec_id, task) in enumerate(batch):
            if position is not None:
                position.value = k
            try:
                result = measure(backend, known.get(spec_id) or specs.load(spec_id), task, shard)
            except Exception as e:  # noqa: BLE001 - opconform's own failure, never the backend's
                conn.send(("harness-error", task.id, spec_id, f"{type(e).__name__}: {e}".splitlines()[0][:300]))
            else:
                conn.send(("result", record.Judged.of(result), backend.models_built))
