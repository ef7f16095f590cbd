"""A pool of worker processes that survives its backend.

Each worker runs whole batches. The parent watches every busy worker: if it dies (SIGSEGV,
SIGABRT, any exit), goes silent for longer than the per-case timeout, or its resident memory
passes the limit, the parent kills it, reports the case it was on (crash or timeout), puts the
rest of its batch back at the front of the queue and puts a spare worker in its place: one
started beforehand and already holding the backend, so that a crash-heavy backend waits for no
start-up; a new spare then loads in the background.

A worker that dies outside the backend's code is not blamed on opconform at once: a backend
that corrupts its heap (OpenVINO does) is often caught by glibc's checks later, in whatever code
frees memory next, which may be ours. The case then runs again alone in a worker that has run
nothing else. Where the rerun lives, its answer is the case's result and the first death counts
as the backend's earlier damage (PoolStats.deaths_not_reproduced). Where it dies outside the
backend again, the damage may be the case's own (OpenVINO's Identity writes past its float4e2m1
output, and glibc catches it as opconform reads the output): a control run (worker.control_case)
runs it once more with opconform's reading of the outputs left out, then lets the runtime's
objects go and exercises the heap in the backend's phase. Dying there, the case is the backend's
crash; living, or dying in opconform's code again, it is a harness-error.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from queue import Empty, Queue
from time import monotonic
from typing import Any, Callable, Hashable, Mapping, Sequence

from opconform.backends.base import EXIT_REASONS
from opconform.model import Case
from opconform.suites import worker
from opconform.suites.described import type_of
from opconform.suites.plan import Item, group_key

STARTUP_TIMEOUT = 180.0  # importing a runtime can be slow on a busy machine
MAX_STARTUP_FAILURES = 3
# batches a worker holds at once. Not 2: a second batch sent while the worker runs the first can
# fill the pipe while the worker, its results unread, blocks sending them, and both wait forever
# (seen on the ci profile's large batches); sending ahead needs a sender thread per worker
PREFETCH = 1
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
# Once a case has gone silent for the whole per-case timeout, the other cases of its model signature
# get this share of it: a hang (a loop that never ends, tract's GatherND with rank-0 indices) comes
# back on every case of its model, and waiting the full timeout on each of them took half of a
# tract ci run. They still run, and a case that answers in time gets its own verdict.
HUNG_SIGNATURE_SHARE = 1 / 6
# ... and once a case has passed the memory limit, the other cases of its signature may use this
# share of what the limit leaves above the loaded backend: a runaway allocation comes back on
# every case of its model too, and filling 4 GiB
# before each kill took a third of tract's ci run (135 kills in 7 of its signatures)
BLOWN_SIGNATURE_SHARE = 1 / 4


# Workers start from a fork server that has imported these already: a replacement worker after a
# crash is ready in a tenth of a second instead of a second or more. Only modules that start no
# threads (forking a threaded process is unsafe); each backend's own library loads in the worker.
PRELOAD = ["numpy", "onnx", "opconform.specs", "opconform.generator.onnx_model", "opconform.suites.record",
           "opconform.backends.onnx_base"]


def _context() -> Any:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    for k, v in worker.THREAD_ENV.items():  # the fork server and its children inherit these
        os.environ.setdefault(k, v)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


class PoolError(RuntimeError):
    """The backend cannot run at all (it fails while loading); one line."""


def rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"worker killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"worker killed by signal {-code}"
    if code in EXIT_REASONS:
        return f"worker exited: {EXIT_REASONS[code]}"
    return f"worker exited with status {code}"


@dataclass
class _Worker:
    process: Any
    conn: Any
    started: float
    phase: Any  # shared flag: worker.BACKEND while the backend's code runs
    position: Any  # shared: how many cases the worker started before the one it is on
    ready: bool = False
    pending: list[Item] = field(default_factory=list)  # cases sent, not yet answered, in the order sent
    reported: int = 0  # results received from this worker so far
    in_flight: deque = field(default_factory=deque)  # cases left of each batch sent, oldest first
    last: float = 0.0  # when it last showed progress (batch sent or result received)
    models_built: int = 0
    memory_checked: float = 0.0
    first: list[Item] = field(default_factory=list)  # a batch it runs before taking from the queue
    control: bool = False  # `first` is a control run (worker.control_case)
    baseline: int = 0  # its resident memory once the backend was loaded, in bytes
    spent: bool = False  # it asked to be replaced (Backend.spent): sent nothing more, stopped once it has answered


def _unsent(w: _Worker) -> int:
    """The index in w.pending of the case the worker is on: those before it finished, unsent."""
    return min(max(w.position.value - w.reported, 0), len(w.pending) - 1)


def _current(w: _Worker) -> Item:
    return w.pending[_unsent(w)]


def _signature_key(item: Item) -> Hashable:
    """The item's model signature (plan.group_key) for a case; None for other work (a stress rung)."""
    spec_id, case = item
    return group_key(spec_id, case) if isinstance(case, Case) else None


def _alike_keys(item: Item) -> tuple[Hashable, ...]:
    """The keys of the cases that a hang or a runaway allocation in this one comes back on: its model
    signature's, and for a must-refuse case also its broken relation's with its element types,
    whatever the shapes (onnx.reference loops for ever on every Loop-13 whose trip count M is
    complex, on every shape of the loop's values: twelve cases, each a signature of its own)."""
    key = _signature_key(item)
    if key is None:
        return ()
    spec_id, case = item
    if case.expected.kind != "error":
        return (key,)
    types = tuple(None if x is None else type_of(x) for x in case.inputs)
    return key, ("refused", spec_id, case.expected.relation, types)


@dataclass
class PoolStats:
    workers_started: int = 0
    crashes: int = 0
    timeouts: int = 0
    memory_kills: int = 0
    harness_deaths: int = 0
    # workers lost building a batch's models ahead (Backend.ahead): the batch ran again without
    ahead_deaths: int = 0
    # deaths outside the backend's code that the case, rerun alone in an unused worker, did not repeat
    deaths_not_reproduced: int = 0
    spares_used: int = 0
    workers_retired: int = 0  # replaced, alive, at their backend's asking (Backend.spent)
    models_built: int = 0
    backend_version: str = ""


class WorkerPool:
    """on_result(record.Judged) for each judged case; on_lost(item, status, message) for a case with no
    result line from its worker: the one it was on when it had to be killed (status crash or timeout,
    or harness-error where it died outside the backend's code), or one opconform failed on and
    could not even record (harness-error); on_harness_error(case_id, spec_id, message) is told of
    every harness-error as well, whichever way it came."""

    def __init__(self, backend_ref: str, *, jobs: int, timeout: float, memory_limit_mb: int | None,
                 shard: str | None, on_result: Callable[[Any], None],
                 on_lost: Callable[[Item, str, str], None],
                 on_harness_error: Callable[[str, str, str], None] = lambda *a: None,
                 worker_main: Callable[..., None] = worker.main, spare: bool = True,
                 on_results: Callable[[list], None] | None = None):
        # worker_main: the workers' entry point, speaking worker.main's protocol (the stress
        # profile's workers time rungs instead: suites/stress_worker.py)
        self.worker_main = worker_main
        self.spare = spare  # keep a spare worker loaded (False: start a fresh one after a death, for comparison)
        self.backend_ref, self.jobs, self.timeout = backend_ref, max(1, jobs), timeout
        self.memory_limit = None if not memory_limit_mb else memory_limit_mb * 1024 * 1024
        self.shard = shard
        self.on_result, self.on_lost, self.on_harness_error = on_result, on_lost, on_harness_error
        # several results at once (a worker sends them gathered): one call, so the caller can write
        # them with one write(); without it, on_result for each
        self.on_results = on_results or (lambda judged: [on_result(j) for j in judged])
        self.stats = PoolStats()
        self._ctx = _context()
        self._startup_failures = 0
        self._early: list[_Worker] = []  # started by start(), before run() has the batches
        self._starting: threading.Thread | None = None

    def start(self) -> None:
        """Start the workers now, in the background (the fork server's imports and each worker's
        backend take seconds), so that they are ready by the time run() has its batches: the
        caller plans meanwhile. run() stops any it does not need."""
        if self._starting is None and not self._early:
            count = self.jobs + (1 if self.spare else 0)  # the workers, then the spare
            self._starting = threading.Thread(target=lambda: self._early.extend(self._spawn() for _ in range(count)),
                                              name="opconform-pool-start", daemon=True)
            self._starting.start()

    def _started(self) -> list[_Worker]:
        """The workers start() started (waiting for it to finish starting them), taken."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        early, self._early = self._early, []
        return early

    def close(self) -> None:
        """Stop workers start() started that no run() took (the caller failed before running)."""
        for w in self._started():
            self._stop(w)

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        flag = self._ctx.Value("i", worker.HARNESS, lock=False)
        position = self._ctx.Value("i", 0, lock=False)
        p = self._ctx.Process(target=self.worker_main, args=(child, self.backend_ref, self.shard, flag, position), daemon=True)
        p.start()
        child.close()
        self.stats.workers_started += 1
        return _Worker(p, parent, monotonic(), flag, position)

    def run(self, batches: Sequence[list[Item]], spec_versions: Mapping[str, Any] | None = None,
            encoded: Mapping[int, tuple[str, bytes]] | None = None,
            keys: Mapping[int, Hashable] | None = None,
            feed: "Queue[tuple[list[list[Item]], Mapping[str, Any]] | None] | None" = None) -> PoolStats:
        """spec_versions: the SpecVersions by id, sent along with the batches that need them.
        encoded: (case id, case JSON) by id() of the Case object, for cases encoded at generation.
        keys: their quick keys (plan.group_key) by id() of the Case object, where the caller has them
        from grouping the cases: sent along, so that a worker does not compute them again.
        feed: more work while the pool runs, (batches, their SpecVersions by id) at a time, from
        another thread; None in the feed says nothing more will come (the pool then finishes)."""
        self._specs = dict(spec_versions or {})
        self._not_ahead: set[int] = set()  # id() of the cases in a batch whose worker died building ahead
        self._rerun: set[int] = set()  # id() of the cases rerun alone after a death outside the backend
        self._control: set[int] = set()  # id() of the cases then given a control run (worker.control_case)
        self._died: dict[int, str] = {}  # id() of a case in a control run -> how it died before
        self._longest_build = 0.0  # the longest build_seconds of a result so far
        self._blown: set = set()  # _alike_keys of the cases that passed the memory limit
        self._hung: set = set()  # _alike_keys of the cases that timed out
        encoded, keys = encoded or {}, keys or {}
        leaving: list[_Worker] = []  # retired workers told to stop, not waited for until the end
        queue: deque[list[Item]] = deque(b for b in batches if b)
        feeding = feed is not None
        wanted = self.jobs if feeding else min(self.jobs, len(queue))
        early = self._started()
        workers = early[:wanted] + [self._spawn() for _ in range(wanted - len(early))]
        early = early[wanted:]
        spare = (early.pop() if early else self._spawn()) if workers and self.spare else None
        for w in early:
            self._stop(w)
        try:
            while queue or feeding or any(w.pending or w.first for w in workers):
                while feeding:
                    try:
                        more = feed.get(block=not queue and not any(w.pending or w.first for w in workers), timeout=0.25)
                    except Empty:
                        break
                    if more is None:
                        feeding = False
                    else:
                        queue.extend(b for b in more[0] if b)
                        self._specs.update(more[1])
                for w in workers:
                    # a second batch waits in the pipe while the first runs, so that the worker goes on
                    # at once instead of waiting for the parent (planning, writing) to answer; not at the
                    # end of the queue, where it would leave another worker without a batch
                    while w.ready and not w.spent and (w.first or (queue and (not w.pending or
                                                              (len(w.in_flight) < PREFETCH and len(queue) > len(workers))))):
                        if w.first and w.pending:
                            break  # a rerun runs alone: after what the worker holds, nothing with it
                        control = bool(w.first) and w.control
                        batch, w.first = list(w.first or queue.popleft()), []
                        if not w.pending:
                            w.last = monotonic()
                        w.pending += batch
                        w.in_flight.append(len(batch))
                        try:
                            w.conn.send(({sid: self._specs[sid] for sid, _ in batch if sid in self._specs}, batch,
                                         [encoded.get(id(case)) for _, case in batch], self._deaths() > 0, control,
                                         not any(id(case) in self._not_ahead for _, case in batch),
                                         [keys.get(id(case)) for _, case in batch]))
                        except (BrokenPipeError, ConnectionResetError):
                            break  # it died since it last answered: _service finds it dead, its pending cases rerun
                everyone = workers + ([spare] if spare else [])
                wait([w.conn for w in everyone] + [w.process.sentinel for w in everyone], timeout=0.25)
                if spare is not None:
                    status, message = self._service(spare)
                    if status:  # it could not even start: counts towards the backend's start-up failures
                        self._retire(spare, status, message, queue)
                        spare = self._spawn()
                for w in list(workers):
                    status, message = self._service(w)
                    if not status and w.spent and not w.pending:
                        workers.remove(w)
                        self._dismiss(w, leaving)
                        self.stats.models_built += w.models_built
                        self.stats.workers_retired += 1
                        if queue or feeding:
                            successor, spare = (spare, self._spawn()) if spare is not None else (self._spawn(), None)
                            workers.append(successor)
                    elif status:
                        workers.remove(w)
                        rerun = self._retire(w, status, message, queue)
                        if queue or feeding or rerun:
                            if spare is not None:
                                successor, spare = spare, self._spawn()
                                self.stats.spares_used += 1
                            else:
                                successor = self._spawn()
                            successor.first = rerun
                            successor.control = bool(rerun) and id(rerun[0][1]) in self._control
                            workers.append(successor)
        finally:
            for w in workers + ([spare] if spare else []) + leaving:
                self._stop(w)
        self.stats.models_built += sum(w.models_built for w in workers)
        return self.stats

    def _deaths(self) -> int:
        return self.stats.crashes + self.stats.memory_kills + self.stats.harness_deaths + len(self._rerun)

    def _service(self, w: _Worker) -> tuple[str | None, str]:
        """Drain a worker's messages; (status, message) when it must be replaced."""
        try:
            while w.conn.poll():
                self._handle(w, w.conn.recv())
        except (EOFError, OSError):
            pass  # it died; the exit code says how
        if not w.process.is_alive():
            w.process.join()
            return "crash", describe_exit(w.process.exitcode)
        now = monotonic()
        if not w.ready and now - w.started > STARTUP_TIMEOUT:
            return "startup", f"worker did not load backend {self.backend_ref!r} within {STARTUP_TIMEOUT:.0f} s"
        if self._hung and w.pending:
            # a fresh worker builds the signature's model again: never less than twice the longest build seen
            short = max(self.timeout * HUNG_SIGNATURE_SHARE, min(self.timeout, 2 * self._longest_build))
            if short < now - w.last <= self.timeout and not self._hung.isdisjoint(_alike_keys(_current(w))):
                return "timeout", (f"no result within {short:g} s (the per-case timeout is {self.timeout:g} s; another "
                                   f"case of this model signature, or breaking the same relation with the same "
                                   f"element types, already went silent for all of it)")
        if w.pending and now - w.last > self.timeout:
            return "timeout", f"no result within the {self.timeout:g} s per-case timeout"
        if self.memory_limit and w.pending and now - w.memory_checked > 0.1:
            w.memory_checked = now
            rss = rss_bytes(w.process.pid)
            if rss > self.memory_limit:
                return "memory", f"worker memory {rss >> 20} MiB passed the {self.memory_limit >> 20} MiB limit"
            # a share of what the limit leaves above the loaded backend (torch alone holds ~0.7 GiB)
            low = w.baseline + int(max(self.memory_limit - w.baseline, 0) * BLOWN_SIGNATURE_SHARE)
            if rss > low and self._blown and not self._blown.isdisjoint(_alike_keys(_current(w))):
                return "memory", (f"worker memory {rss >> 20} MiB passed {low >> 20} MiB (the memory limit is "
                                  f"{self.memory_limit >> 20} MiB; another case of this model signature, or breaking "
                                  f"the same relation with the same element types, already passed all of it)")
        return None, ""

    def _handle(self, w: _Worker, msg: tuple) -> None:
        kind = msg[0]
        if kind == "many":
            judged = []
            for m in msg[1]:
                if m[0] == "result":
                    judged.append(self._answered(w, m))
                else:
                    self._deliver(judged)
                    judged = []
                    self._handle(w, m)
            self._deliver(judged)
            return
        if kind == "ready":
            w.ready, w.last = True, monotonic()
            w.baseline = rss_bytes(w.process.pid)
            self.stats.backend_version = msg[1]
            self._startup_failures = 0
        elif kind == "spent":
            w.spent = True
        elif kind == "fatal":
            raise PoolError(msg[1])
        elif kind == "ahead":  # it built (a part of) the batch's models ahead (worker.look_ahead): the next
            w.last = monotonic()  # part, or the batch's first case, gets a whole timeout
        elif kind == "result":
            self._deliver([self._answered(w, msg)])
        elif kind == "control":  # the control run lived: the deaths were opconform's
            item = self._pop(w)
            self.stats.harness_deaths += 1
            why = (f"died outside the backend, in opconform's own code: {self._died[id(item[1])]} (rerun alone in an "
                   f"unused worker: died the same way; run again with opconform's reading of the outputs left out, "
                   f"the process lived)")
            self.on_lost(item, "harness-error", why)
            self.on_harness_error(item[1].id, item[0], why)
        elif kind == "harness-error":  # the worker could not make the result line: it is made here
            item = self._pop(w)
            self.on_lost(item, "harness-error", msg[3])
            self.on_harness_error(msg[1], msg[2], msg[3])

    def _pop(self, w: _Worker) -> Item:
        """The oldest case sent to a worker, now answered."""
        item = w.pending.pop(0)
        w.reported += 1
        w.in_flight[0] -= 1
        if not w.in_flight[0]:
            w.in_flight.popleft()
        w.last = monotonic()
        return item

    def _answered(self, w: _Worker, msg: tuple) -> Any:
        """The bookkeeping of a ("result", Judged, models built) message; its Judged."""
        item = self._pop(w)
        if id(item[1]) in self._rerun and msg[1].verdict != "harness-error":
            self.stats.deaths_not_reproduced += 1
        w.models_built = msg[2]
        self._longest_build = max(self._longest_build, msg[1].build_seconds)
        return msg[1]

    def _deliver(self, judged: list) -> None:
        if not judged:
            return
        self.on_results(judged)
        for j in judged:
            if j.verdict == "harness-error":
                self.on_harness_error(j.case_id, j.spec_id, j.message)

    def _retire(self, w: _Worker, status: str, message: str, queue: deque) -> list[Item]:
        """Kill a worker that must go and report the case it was on; the batch to rerun at once,
        alone in an unused worker (the case it died on outside the backend's code), or []."""
        self._kill(w)
        self.stats.models_built += w.models_built
        if not w.ready:
            self._startup_failures += 1
            if status == "startup" or self._startup_failures >= MAX_STARTUP_FAILURES:
                raise PoolError(f"backend {self.backend_ref!r} cannot start: {message}")
        rerun: list[Item] = []
        if w.pending and w.phase.value == worker.AHEAD:
            # it died building the batch's models ahead (Backend.ahead), before any of its cases ran:
            # none is to blame, and they all run again, with that step left out
            self.stats.ahead_deaths += 1
            self._not_ahead.update(id(case) for _, case in w.pending)
            queue.appendleft(list(w.pending))
        elif w.pending:
            # cases before the one running finished, but their results had not been sent: rerun them
            unsent = _unsent(w)
            item, rest = w.pending[unsent], w.pending[:unsent] + w.pending[unsent + 1:]
            key = _signature_key(item)
            if status == "timeout":
                self._hung.update(_alike_keys(item))
            if status == "memory":
                self._blown.update(_alike_keys(item))
            controlled = id(item[1]) in self._control
            if w.phase.value == worker.BACKEND:
                kind = {"timeout": "timeouts", "memory": "memory_kills"}.get(status, "crashes")
                setattr(self.stats, kind, getattr(self.stats, kind) + 1)
                if controlled:  # the backend damaged the process in this very case
                    message = (f"{message} (died twice in opconform's code, the second time alone in an unused worker; "
                               f"run again with opconform's reading of the outputs left out, it died in the backend's "
                               f"phase: damage the backend did in this case, caught later in opconform's code)")
                self.on_lost(item, "timeout" if status == "timeout" else "crash", message)
            elif id(item[1]) not in self._rerun and status == "crash":
                # maybe damage the backend did earlier in this process, caught in our code: try it alone
                self._rerun.add(id(item[1]))
                rerun = [item]
            elif not controlled and status == "crash" and key is not None:  # a case (a stress rung has no control run)
                # maybe damage the backend did in this very case (it wrote past a buffer, and glibc
                # caught it in our reading of the outputs): once more, without our reading
                self._control.add(id(item[1]))
                self._died[id(item[1])] = message
                rerun = [item]
            else:
                # it died in opconform's own code (e.g. onnx shape inference building the model)
                self.stats.harness_deaths += 1
                again = " (rerun alone in an unused worker: died the same way)" if id(item[1]) in self._rerun else ""
                if controlled:
                    again = (" (rerun alone in an unused worker, then once more with opconform's reading of the "
                             "outputs left out: died in opconform's code each time)")
                why = f"died outside the backend, in opconform's own code: {message}{again}"
                self.on_lost(item, "harness-error", why)
                self.on_harness_error(item[1].id, item[0], why)
            if rest:
                queue.appendleft(rest)
        return rerun

    def _kill(self, w: _Worker) -> None:
        if w.process.is_alive():
            os.kill(w.process.pid, signal.SIGKILL)
        w.process.join()
        w.conn.close()

    def _dismiss(self, w: _Worker, leaving: list[_Worker]) -> None:
        """Tell a worker that has answered everything to stop, without waiting for it to exit."""
        try:
            w.conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        leaving.append(w)

    def _stop(self, w: _Worker) -> None:
        try:
            if w.process.is_alive():
                w.conn.send(None)
                w.process.join(timeout=5)
        except (OSError, BrokenPipeError):
            pass
        self._kill(w)
