"""The worker process: loads the backend once, then runs batches of cases, sending back the
judged results as it gets them: each one at once, or, given a shared `position`, gathered for
up to FLUSH_SECONDS and sent together (one message instead of dozens: the pipe and the parent's
wake-ups cost more than a fast backend's run). `position` says which case sent to it is
running, so that the parent still knows which case a death belongs to; results gathered but not
yet sent when the worker dies are not lost but rerun. Whatever the backend does to this process (a signal,
a hang, a memory blow-up) the parent sees and survives; this side only reports."""
from __future__ import annotations

import gc
import os
import warnings
from time import perf_counter
from typing import Any, Iterator

# one thread per worker: the runner runs --jobs workers side by side (set before any library loads)
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# ... and no Rust backtraces, whatever the user's shell says: with RUST_BACKTRACE=1 every error a
# Rust runtime makes, even one it handles, captures and resolves a backtrace (tract's builds and
# panics took 17 s instead of 0.2 s on 519 MatMul/Gemm cases), and a panic's trace is only noise here
QUIET_ENV = {"RUST_BACKTRACE": "0", "RUST_LIB_BACKTRACE": "0"}


BACKEND, HARNESS, AHEAD = 1, 0, 2  # values of the shared phase flag (AHEAD: in look_ahead, no case's)
_LOOKING_AHEAD = [False]
FLUSH_SECONDS = 0.05


def start(conn: Any, backend_ref: str, phase_flag: Any) -> Any:
    """A worker's start: one thread, the phase flag wired, the backend loaded and "ready" sent;
    the backend, or None after sending "fatal" (the backend cannot load)."""
    for k, v in THREAD_ENV.items():
        os.environ.setdefault(k, v)
    os.environ.update(QUIET_ENV)
    warnings.simplefilter("ignore")  # NaN and overflow are met on purpose; verdicts say what matters
    from opconform import backends
    from opconform.backends import base

    def on_phase(name: str) -> None:
        phase_flag.value = AHEAD if _LOOKING_AHEAD[0] else BACKEND if name == "backend" else HARNESS

    base.set_phase_listener(on_phase)

    try:
        backend = backends.get(backend_ref)
        backend.warm_up()
        _harness()  # imported before "ready": a worker's first case pays no imports (the pool times it)
        conn.send(("ready", backend.version()))
    except Exception as e:  # noqa: BLE001 - reported to the parent as one line
        conn.send(("fatal", str(e).splitlines()[0] if str(e) else type(e).__name__))
        return None
    return backend


_HARNESS: list = []  # (specs, backends.base, suites.record), imported once, after start() set the threads


def _harness() -> tuple[Any, Any, Any]:
    if not _HARNESS:
        from opconform import specs
        from opconform.backends import base
        from opconform.suites import record

        _HARNESS.extend((specs, base, record))
    return _HARNESS[0], _HARNESS[1], _HARNESS[2]


def collect_garbage(phase: Any) -> None:
    """The cyclic garbage collector's work, done here, in the backend's phase, instead of at whatever
    allocation it would start on (main() turns it off): objects in reference cycles may hold the
    runtime's (an OpenVINO tensor or model), whose destructors are its code; run in the middle of
    opconform's code, a death in one was charged to opconform. As often as the collector would
    run itself (its thresholds), checked once a case."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[0] < thresholds[0]:
        return
    generation = 2 if counts[2] >= thresholds[2] else 1 if counts[1] >= thresholds[1] else 0
    with phase("backend"):
        gc.collect(generation)


def messages(conn: Any) -> Iterator[tuple]:
    """The batches the parent sends, (spec versions by id, batch, *more), until it sends None or closes."""
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        yield message


def main(conn: Any, backend_ref: str, shard: str | None, phase_flag: Any, position: Any = None) -> None:
    """phase_flag: a shared integer the parent reads after a death, to tell backend from harness.
    position: a shared integer, how many cases this worker started before the one running, over
    every batch (the parent may send the next batch before the last is done; None: send each
    result at once)."""
    backend = start(conn, backend_ref, phase_flag)
    if backend is None:
        return
    gc.disable()  # collected in the backend's phase between cases (collect_garbage)
    # what start-up made (modules, the backend and its runtime) lives as long as the worker: out of
    # the collector's sight, a full collection scans only what the cases made
    gc.freeze()
    known: dict = {}  # spec id -> SpecVersion, as the parent sent them (no YAML parsing here)
    started = 0
    spent = False
    # more: the cases' JSON encoded at generation (when the sender has it), whether to send each
    # result at once (the pool asks once its workers die: results gathered die with the worker and
    # are run again, which on a crash-heavy backend cost more than the messages saved), whether it
    # is a control run, and whether the backend may build the batch's models ahead
    for sent, batch, *more in messages(conn):
        encoded = more[0] if more else [None] * len(batch)
        keys = more[4] if len(more) > 4 else [None] * len(batch)  # each case's quick key, where the parent sends it
        at_once = len(more) > 1 and more[1]
        known.update(sent)
        if len(more) > 2 and more[2]:  # a control run: one case, alone in this worker
            spec_id, case = batch[0]
            conn.send(control_case(backend, known, spec_id, case))
            continue
        if len(more) > 3 and more[3] and len(batch) > 1:
            look_ahead(backend, known, batch, phase_flag, lambda: conn.send(("ahead",)))
            conn.send(("ahead",))  # the batch's first case starts now: its timeout too
        gathered: list[tuple] = []
        flushed = perf_counter()
        for k, ((spec_id, case), pre, key) in enumerate(zip(batch, encoded, keys)):
            if position is not None:
                position.value = started
            started += 1
            gathered += judge_case(backend, known, spec_id, case, pre, shard, key)
            if position is None or at_once or k == len(batch) - 1 or perf_counter() - flushed >= FLUSH_SECONDS:
                conn.send(gathered[0] if len(gathered) == 1 else ("many", gathered))
                gathered, flushed = [], perf_counter()
        if not spent and backend.spent():
            spent = True
            conn.send(("spent",))  # the parent sends nothing more, and replaces it once it has answered all


def look_ahead(backend: Any, known: dict, batch: list, phase_flag: Any, progress: Any) -> None:
    """Let the backend build the batch's models together before its first case runs (Backend.ahead;
    progress() tells the parent after each part, which then gives the next part a whole timeout).
    Meanwhile the flag says AHEAD: a death here is no case's, and the parent sends the batch again
    with this step left out. An exception here only loses the saving: each case's own run builds its
    model and meets whatever failed."""
    specs, _, _ = _harness()
    _LOOKING_AHEAD[0] = True
    phase_flag.value = AHEAD
    try:
        backend.ahead([(known.get(spec_id) or specs.load(spec_id), case) for spec_id, case in batch], progress)
    except Exception:  # noqa: BLE001 - see above
        pass
    finally:
        _LOOKING_AHEAD[0] = False
        phase_flag.value = HARNESS


def exercise_heap() -> None:
    """malloc and free every small size class, straight from the C library: glibc checks the chunks
    it hands out and takes back (a corrupted free list: "malloc(): unaligned tcache chunk
    detected"), so a heap a runtime wrote past dies here. Python's own small objects would not do:
    they come from its own allocator. Five runs of OpenVINO's Identity on float4e2m1: caught here
    right after the run in three, inside the run in one, never in one."""
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        malloc, free = libc.malloc, libc.free
    except (OSError, AttributeError):
        return
    malloc.restype, malloc.argtypes, free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
    for size in range(8, 4097, 8):
        held = [malloc(size) for _ in range(16)]  # more than a size's tcache holds (7): its bins too
        for p in held:
            free(p)


def control_case(backend: Any, known: dict, spec_id: str, case: Any) -> tuple:
    """A case that died in opconform's own code, twice (the second time alone in an unused worker),
    run once more with opconform's reading of its outputs left out; then every model is let go
    (the runtime's destructors) and the heap is exercised, all in the backend's phase. Living
    through it, the death was opconform's: ("control", case id). A runtime that wrote past
    its buffers, which glibc caught later in whatever code freed memory next (OpenVINO's Identity
    on float4e2m1), dies here instead, in the backend's phase: the parent then blames the backend."""
    specs, base, _ = _harness()
    spec = known.get(spec_id) or specs.load(spec_id)
    backend.leave_outputs_unread = True
    try:
        backend.execute(spec, case)
        with base.phase("backend"):
            exercise_heap()
            backend.release()
            gc.collect()
            exercise_heap()
    except Exception:  # noqa: BLE001 - an exception is not the death this run looks for
        pass
    finally:
        backend.leave_outputs_unread = False
    return ("control", case.id)


def judge_case(backend: Any, known: dict, spec_id: str, case: Any, pre: tuple[str, bytes] | None,
               shard: str | None, key: Any = None) -> list[tuple]:
    """Run and judge one case: the messages for the parent, ("result", Judged, models built) or,
    where no result line can be made, ("harness-error", case id, spec id, message). The result's
    harness_seconds is this call's time outside the backend's build and run. key: the case's quick
    key (backends.base.quick_key), where the parent computed it grouping the cases."""
    specs, base, record = _harness()
    t0 = perf_counter()
    spec = None
    try:
        spec = known.get(spec_id) or specs.load(spec_id)
        outcome = backend.execute(spec, case, key)
        collect_garbage(base.phase)
        result = record.make(spec, case, outcome, backend.name, shard=shard, encoded=pre)
        not_harness = outcome.backend_seconds + outcome.build_seconds
    except Exception as e:  # noqa: BLE001 - opconform's own failure: its verdict, never the backend's
        message = base.harness_message(e)
        try:
            result = record.harness_error(spec, case, backend.name, message, shard=shard, encoded=pre)
        except Exception:  # noqa: BLE001 - no result line can be made: the parent makes it
            return [("harness-error", case.id, spec_id, message)]
        not_harness = 0.0
    # harness_seconds is measured once the line is encoded: the encoding is the harness's too
    return [("result", record.Judged.of(result, started=t0, not_harness=not_harness), backend.models_built)]
