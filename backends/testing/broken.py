"""A deliberately broken backend: per case it crashes, hangs, blows up its memory, returns wrong
shapes, element types or values, leaves outputs out, refuses valid input or accepts invalid input;
or its adapter code (marked phase("harness"), as a real backend's tensor conversions are) raises
("harness") or kills the process ("harness-death"): opconform's failures, never the backend's.
"damage" answers right but leaves the process damaged, as a runtime that corrupts its heap does:
the next case in the same process dies in opconform's code (glibc's checks abort wherever memory
is freed next), which the runner must not charge to opconform. "damage-now" answers right, but the damage is caught as opconform reads the outputs (as glibc
caught OpenVINO's write past a float4e2m1 output) and, in a control run that leaves the outputs
unread, when the backend lets its models go. "cycle-death" answers right and
leaves a reference cycle holding an object whose destructor kills the process (as a runtime's
object in a cycle may): whenever the garbage collector frees it, it is the backend's crash.
"spend" answers right and makes the worker ask to be replaced (Backend.spent), as TVM's does once
it has loaded many libraries: the pool replaces it, alive, once it has answered what it was sent.
"die-ahead" answers right, but kills the process when the worker lets the backend build the
batch's models ahead (Backend.ahead), as a compiler may die compiling a batch's models together:
no case is to blame, and the batch runs again without that step.

    opconform run --backend opconform.backends.testing.broken:BrokenBackend ...

Which misbehaviour a case gets: from the JSON file named by $OPCONFORM_BROKEN_PLAN
({case id: behaviour}, "*" for every other case) when set, else from the case id's hash.
"slow" answers right after 0.2 s (for tests that must interrupt a run). behaviour() and expected_verdict()
let a test check that the runner judged every case as it should.
"""
from __future__ import annotations

import json
import os
import signal
import time
from functools import lru_cache
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from opconform.backends.base import Backend, phase
from opconform.model import Case, Outcome, SpecVersion

VALID_BEHAVIOURS = ("pass", "segv", "abort", "hang", "memory", "wrong-shape", "wrong-dtype", "mismatch",
                    "missing", "refuse", "unsupported")
INVALID_BEHAVIOURS = ("refuse", "accept", "segv", "hang")
PLAN_ENV = "OPCONFORM_BROKEN_PLAN"

_VERDICTS = {"pass": "pass", "slow": "pass", "segv": "crash", "abort": "crash", "memory": "crash", "hang": "timeout",
             "wrong-shape": "wrong-shape", "wrong-dtype": "wrong-dtype", "mismatch": "mismatch",
             "missing": "missing-output", "refuse": "error", "unsupported": "unsupported",
             "harness": "harness-error", "harness-death": "harness-error", "damage": "pass",
             "cycle-death": "crash", "damage-now": "crash", "die-ahead": "pass", "spend": "pass"}


class Unsupported(RuntimeError):
    pass


@lru_cache(maxsize=1)
def _plan(path: str | None) -> dict[str, str]:
    return json.loads(open(path).read()) if path else {}


def behaviour(case: Case) -> str:
    plan = _plan(os.environ.get(PLAN_ENV))
    planned = plan.get(case.id) or plan.get("*")
    if planned:
        return planned
    options = VALID_BEHAVIOURS if case.expected.kind == "outputs" else INVALID_BEHAVIOURS
    chosen = options[int(case.id, 16) % len(options)]
    return "wrong-shape" if chosen == "mismatch" and not can_mismatch(case) else chosen


def expected_verdict(case: Case, chosen: str) -> str:
    """The verdict a correct runner gives a case this backend handled with behaviour `chosen`."""
    if case.expected.kind == "outputs" or chosen.startswith("harness"):
        return _VERDICTS[chosen]
    if chosen in ("segv", "abort", "memory"):
        return "crash"
    if chosen == "hang":
        return "timeout"
    if case.expected.kind == "undefined":
        return "pass"
    return "pass" if chosen in ("refuse", "unsupported") else "accepted-invalid"


_damaged = [False]  # set by a "damage" case: this process dies at the next case's start
_damaged_now = [False]  # set by a "damage-now" case: this process dies when the backend lets go of its models
_spent = [False]  # set by a "spend" case: this process asks to be replaced


class BrokenBackend(Backend):
    name = "broken"
    dialects = ("onnx", "openvino")

    def execute(self, spec: SpecVersion, case: Case, quick: Hashable | None = None) -> Outcome:
        if _damaged[0]:  # before anything of the case, in opconform's phase
            os.abort()
        return super().execute(spec, case, quick)

    def version(self) -> str:
        return "0"

    def ahead(self, items: Sequence[tuple[SpecVersion, Case]], progress: Callable[[], None] = lambda: None) -> None:
        if any(behaviour(case) == "die-ahead" for _, case in items):
            os.kill(os.getpid(), signal.SIGSEGV)

    def release(self) -> None:
        super().release()
        if _damaged_now[0]:  # the runtime's destructors meet the heap it damaged
            os.abort()

    def spent(self) -> bool:
        return _spent[0]

    def signature(self, spec: SpecVersion, case: Case) -> Hashable:
        return case.id  # no model to share

    def prepare(self, spec: SpecVersion, case: Case) -> Any:
        return None

    def classify(self, exc: BaseException, stage: str) -> str:
        return "unsupported" if isinstance(exc, Unsupported) else "error"

    def run(self, prepared: Any, spec: SpecVersion, case: Case) -> Sequence[np.ndarray | None]:
        chosen = behaviour(case)
        if chosen == "harness":
            with phase("harness"):  # a conversion of the inputs that is broken: opconform's bug
                np.zeros((), np.float32).view(np.uint8)  # the 0-d view OpenVINO's adapter once took
        if chosen == "harness-death":
            with phase("harness"):
                os.kill(os.getpid(), signal.SIGSEGV)
        if chosen == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if chosen == "abort":
            os.abort()
        if chosen == "hang":
            time.sleep(3600)
        if chosen == "slow":
            time.sleep(0.2)
        if chosen == "damage":
            _damaged[0] = True
        if chosen == "damage-now":
            _damaged_now[0] = True
            if not self.leave_outputs_unread:
                with phase("harness"):  # opconform reading the outputs, where glibc finds the damage
                    os.abort()
        if chosen == "spend":
            _spent[0] = True
        if chosen == "cycle-death":
            _leave_doomed_cycle()
        if chosen == "memory":
            _blow_up()
        if chosen == "refuse":
            raise RuntimeError("broken backend refuses this input")
        if chosen == "unsupported":
            raise Unsupported("broken backend does not implement this element type")
        asked = [i for i, a in enumerate(case.outputs_requested) if a]
        if case.expected.kind != "outputs":  # accept (or pass, slow): outputs where an error is due
            return [np.zeros(1, np.float32) if i in asked else None for i in range(len(spec.outputs))]
        alternatives = case.expected.alternatives
        right = list(alternatives[0].outputs)
        out: list[np.ndarray | None] = [right[i] if i in asked else None for i in range(len(spec.outputs))]
        if chosen == "missing":
            out[asked[0]] = None
        elif chosen == "wrong-shape":
            out[asked[0]] = np.expand_dims(right[asked[0]], 0)
        elif chosen == "wrong-dtype":
            x = np.asarray(right[asked[0]])
            out[asked[0]] = np.zeros(x.shape, np.float64 if x.dtype == np.float32 else np.float32)
        elif chosen == "mismatch":
            i = next((k for k in asked if np.size(right[k])), asked[0])
            out[i] = _differing(right[i], [a.outputs[i] for a in alternatives])
        return out


class _Doomed:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGSEGV)


def _leave_doomed_cycle() -> None:
    doomed = _Doomed()
    doomed.me = doomed
    # objects enough that the collector is due: running by itself, it would run while `doomed` is
    # still held here, and free the cycle at some later allocation, most likely in opconform's code
    doomed.junk = [[] for _ in range(2000)]


def can_mismatch(case: Case) -> bool:
    """A value mismatch needs a requested output with at least one element."""
    alt = case.expected.alternatives[0]
    return any(np.size(alt.outputs[i]) for i, a in enumerate(case.outputs_requested) if a)


def _differing(x: np.ndarray, alternatives: list[np.ndarray]) -> np.ndarray:
    """x with its first element changed to a value no alternative has there."""
    y = np.array(x, copy=True)
    taken = {str(np.asarray(a).reshape(-1)[0]) for a in alternatives if np.shape(a) == x.shape}
    candidates = ["zz", "yy"] if y.dtype == object else [1, 2, 3, 0]
    flat = y.reshape(-1)
    for c in candidates:
        flat[0] = np.asarray(c).astype(y.dtype) if y.dtype != object else c
        if str(flat[0]) not in taken:
            break
    return flat.reshape(x.shape)


def _blow_up() -> None:
    hoard = []
    for _ in range(400):  # stops at ~10 GiB even if nobody watches
        hoard.append(np.ones(25 << 20, np.uint8))
    time.sleep(3600)
