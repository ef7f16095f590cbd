"""One backend in a child process, one case at a time, for the pytest suites' --isolate mode.

In-process execution is fastest, but a backend (or onnx shape inference while a model is built)
can kill the process with a signal, and with it the whole pytest session. Here the runner's own
worker (opconform.suites.worker) holds the backend; a death or a hang becomes a crash or timeout
verdict for that case, as in `opconform run`, and a fresh worker takes the next case, so
Hypothesis can shrink a crashing case like any other failure. A death outside the backend's code
in a worker that ran other cases before is first retried alone in a fresh worker (as the runner's
pool does: glibc catches a backend's heap damage wherever memory is freed next, maybe in ours)."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
from dataclasses import dataclass
from time import monotonic
from typing import Any

from opconform.model import Case, SpecVersion, Verdict
from opconform.suites import worker
from opconform.suites.pool import STARTUP_TIMEOUT, describe_exit


class IsolationError(RuntimeError):
    """The worker cannot load the backend, or opconform itself failed on a case (not the backend)."""


class _DiedOutside(IsolationError):
    def __init__(self, message: str, after_others: bool):
        super().__init__(message)
        self.after_others = after_others  # the worker had run other cases before: maybe their damage


@dataclass
class Judged:
    verdict: Verdict
    detail: str
    backend_message: str
    symptom: str | None = None  # the failure's symptom key (suites/symptom.py); None for a pass, crash or timeout


def _result_dict(payload: Any) -> dict:
    """The worker's result: a Result dict, or (since the runner encodes lines in its workers) an
    object carrying the results.jsonl line as bytes."""
    if isinstance(payload, dict):
        return payload
    return json.loads(payload.line)


class IsolatedBackend:
    def __init__(self, backend_ref: str, *, timeout: float = 60.0):
        self.backend_ref, self.timeout = backend_ref, timeout
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._conn: Any = None
        self._phase: Any = None
        self.last_result: dict | None = None  # the full Result dict of the last case that returned one
        self._ran = 0  # cases the current worker has been given

    def _start(self) -> None:
        parent, child = self._ctx.Pipe(duplex=True)
        self._phase = self._ctx.Value("i", worker.HARNESS, lock=False)
        self._proc = self._ctx.Process(target=worker.main, args=(child, self.backend_ref, None, self._phase), daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        self._ran = 0
        if not self._conn.poll(STARTUP_TIMEOUT):
            self.close()
            raise IsolationError(f"worker did not load backend {self.backend_ref!r} within {STARTUP_TIMEOUT:.0f} s")
        try:
            kind, text = self._conn.recv()
        except EOFError:
            self._proc.join()
            raise IsolationError(f"backend {self.backend_ref!r} cannot start: {describe_exit(self._proc.exitcode)}") from None
        if kind != "ready":
            self.close()
            raise IsolationError(f"backend {self.backend_ref!r} cannot start: {text}")

    def run(self, spec: SpecVersion, case: Case) -> Judged:
        try:
            return self._run(spec, case)
        except _DiedOutside as e:
            if not e.after_others:
                raise IsolationError(str(e)) from None
        return self._run(spec, case)  # alone in a fresh worker; a second death there is opconform's

    def _run(self, spec: SpecVersion, case: Case) -> Judged:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        self._ran += 1
        self.last_result = None
        self._conn.send(({spec.id: spec}, [(spec.id, case)]))
        deadline = monotonic() + self.timeout
        while True:
            if self._conn.poll(min(0.25, max(deadline - monotonic(), 0))):
                try:
                    msg = self._conn.recv()
                except EOFError:
                    return self._lost("crash")
                if msg[0] == "result":
                    r = self.last_result = _result_dict(msg[1])
                    if r["verdict"] == Verdict.HARNESS_ERROR.value:  # opconform's bug: fails the item, not the backend
                        raise IsolationError(f"opconform failed on case {r['case_id']} of {r['spec_id']}: {r['backend_message']}")
                    return Judged(Verdict(r["verdict"]), r["detail"], r.get("backend_message", ""),
                                  (r.get("extra") or {}).get("symptom"))
                if msg[0] == "harness-error":
                    raise IsolationError(f"opconform failed on case {msg[1]} of {msg[2]}: {msg[3]}")
            elif not self._proc.is_alive():
                return self._lost("crash")
            elif monotonic() > deadline:
                return self._lost("timeout")

    def _lost(self, status: str) -> Judged:
        """The worker died or hung on this case: a crash or timeout verdict, unless it died in the harness."""
        in_backend, after_others = self._phase.value == worker.BACKEND, self._ran > 1
        if self._proc.is_alive():
            os.kill(self._proc.pid, signal.SIGKILL)
        self._proc.join()
        message = (f"no result within the {self.timeout:g} s per-case timeout" if status == "timeout"
                   else describe_exit(self._proc.exitcode))
        self.close()
        if not in_backend:
            raise _DiedOutside(f"worker died outside the backend, in opconform's own code: {message}", after_others)
        return Judged(Verdict(status), message, "")

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.is_alive():
                os.kill(self._proc.pid, signal.SIGKILL)
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None
