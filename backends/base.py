"""The Backend interface: build a model once per signature, run cases on it, classify failures.

A backend only says what happened (Outcome: ok with outputs, error, unsupported); whether that
conforms is the verdict's business (opconform.suites.verdicts). Crashes and hangs are the
runner's business: backends run in worker processes it can kill.
"""
from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from contextlib import contextmanager
from time import perf_counter
from typing import Any, Callable, Hashable, Iterator, Sequence

import numpy as np

from opconform import containers
from opconform.model import Case, Outcome, SpecVersion, _jsonable


# Which side of the harness/backend line the process is on. The runner's worker listens, so that
# when the process dies the parent knows whether the backend did it or the harness did (say,
# onnx's own shape inference while a model was being built).
_phase = ["harness"]
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the folder holding backends/, suites/...
_phase_listener: list[Callable[[str], None]] = [lambda name: None]


def set_phase_listener(fn: Callable[[str], None]) -> None:
    _phase_listener[0] = fn


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Mark a stretch of code as 'backend' (the implementation under test) or 'harness'. An
    exception leaving the stretch is tagged with the innermost phase it left (phase_of), so that
    adapter code marked 'harness' inside a backend's run() is not blamed on the backend."""
    previous = _phase[0]
    _phase[0] = name
    _phase_listener[0](name)
    try:
        yield
    except BaseException as e:
        if not hasattr(e, _PHASE_ATTR):
            setattr(e, _PHASE_ATTR, name)
        raise
    finally:
        _phase[0] = previous
        _phase_listener[0](previous)


_PHASE_ATTR = "_opconform_phase"


def phase_of(exc: BaseException) -> str | None:
    """The innermost phase an exception was raised in ('backend' or 'harness'); None outside any."""
    return getattr(exc, _PHASE_ATTR, None)


def harness_message(exc: BaseException, limit: int = 300) -> str:
    """One line for opconform's own failure: the exception, and where in opconform it was raised
    (the innermost frame of opconform's code), so that the result line says what to fix."""
    if isinstance(exc, HarnessError):  # said so already, where it was caught
        return str(exc).strip().splitlines()[0][:limit] if str(exc).strip() else "HarnessError"
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if path.startswith(_PACKAGE_ROOT + os.sep) and f"{os.sep}.venv{os.sep}" not in path:
            where = f" (at {os.path.relpath(path, _PACKAGE_ROOT)}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name})"
        tb = tb.tb_next
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[: limit - len(where)] + where


class BackendMissing(RuntimeError):
    """A backend cannot be loaded; the message is one line and names the extra to install."""


# a worker's exit status that a backend chose, for a failure that leaves the process unusable:
# what the pool reports as the crash's message
EXIT_DEVICE_LOST = 86
EXIT_REASONS = {EXIT_DEVICE_LOST: "the backend lost its device context (a CUDA device-side assert, an illegal "
                                  "memory access): every later call in that process would fail"}


def quick_key(spec_id: str, case: Case) -> Hashable:
    """What a case's model depends on, cheaply: the parts of the builder's signature
    (opconform.generator.onnx_model.signature) that need no model, with the output types taken
    from the expected outputs. For a case with expected outputs it determines the signature; for
    a must-refuse case the builder infers output types with onnx's C++ shape inference, which this
    key leaves out (that inference can crash, and must not run where a crash costs the run)."""
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    per_input = tuple(None if x is None else (_kind(x), np.ndim(x), containers.digest(x) if c else None)
                      for x, c in zip(case.inputs, constant))
    alts = case.expected.alternatives
    outs = None if not alts else tuple(None if o is None else (_kind(o), np.ndim(o)) for o in alts[0].outputs)
    return (spec_id, attributes_key(case.attributes), per_input, tuple(case.outputs_requested), outs)


def attributes_key(attributes: dict[str, Any]) -> str:
    """The attributes as sorted JSON. Most are plain Python values, which json takes as they are;
    only NumPy scalars, arrays, bytes and bodies (which it refuses) go through _jsonable first,
    giving the same text either way."""
    try:
        return _SORTED.encode(attributes)
    except TypeError:
        return _SORTED.encode(_jsonable(dict(attributes)))


_SORTED = json.JSONEncoder(sort_keys=True)  # json.dumps(..., sort_keys=True) builds one per call


_DTYPE_NAMES: dict[np.dtype, str] = {}  # str(dtype) costs more than a case's run: asked per input per case


def _kind(x: Any) -> str:
    """A value's dtype, or a container's type (opconform.containers): what a model declares for it."""
    if isinstance(x, np.ndarray):
        name = _DTYPE_NAMES.get(x.dtype)
        if name is None:
            name = _DTYPE_NAMES[x.dtype] = str(x.dtype)
        return name
    return x.type if containers.is_container(x) else str(x.dtype)


class HarnessError(Exception):
    """opconform itself failed on a case (building its model, converting its inputs to the runtime's
    tensors, reading outputs back): never blamed on the backend; its verdict is harness-error."""

    @classmethod
    def of(cls, exc: BaseException) -> "HarnessError":
        return exc if isinstance(exc, HarnessError) else cls(harness_message(exc))


class BuildFailed(Exception):
    """Raised from run() when a model had to be (re)built there and the build failed: classify as a build."""

    def __init__(self, cause: BaseException):
        self.cause = cause
        super().__init__(str(cause))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


_WHERE_ONLY = re.compile(r"^(Exception from \S+:\d+:|Check '.*' failed at \S+:\d+:)$")


def short_message(exc: BaseException, limit: int = 400) -> str:
    """The first meaningful lines of a backend's error, without colour codes, stack traces or lines
    that only say where in the backend's source it was raised."""
    text = _ANSI.sub("", str(exc)).split("Stack backtrace:")[0]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _WHERE_ONLY.match(ln.strip())]
    msg = " | ".join(lines[:4]) or type(exc).__name__
    return f"{type(exc).__name__}: {msg}"[:limit]


def let_go(exc: BaseException) -> None:
    """Drop the frames a backend's exception (and those it was raised from) holds, and with them
    the runtime's objects in their locals, now, in the backend's phase: their destructors are the
    runtime's code, and one a failed call left broken may die there (IREE's result buffers after
    "Could not map memory": a SIGSEGV that, left to the end of the except block, was charged to
    opconform). Call it once the message is read from the exception."""
    with phase("backend"):
        seen = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            exc.__traceback__ = None
            exc = exc.__cause__ or exc.__context__


class _Failed:
    """A build failure, cached like a model: every case of the signature gets the same answer."""

    def __init__(self, status: str, message: str):
        self.status, self.message = status, message


class Backend:
    """Subclasses set `name` and `dialects` and implement prepare() and run()."""

    name: str = "backend"
    dialects: tuple[str, ...] = ("onnx",)
    cache_size: int = 256  # built models kept per worker (LRU)
    ref: str = ""  # how the user named it (set by opconform.backends.get; workers re-create it from this)
    option: str | None = None  # what `name[VALUE]` sets, where the backend takes one ("execution provider")
    compiled_as: str = ""  # run() sets it for the case at hand: Outcome.compiled ("dynamic", "per-shape")
    # whether the backend takes sequences, optionals and maps (opconform.containers) as inputs and
    # outputs; a spec version with such a port is unsupported where it does not
    takes_containers: bool = False
    # whether a probing profile asks the backend first which factor values it implements
    # (suites/probe.py). A compiler pays a compile per probe and another when the run meets the
    # same signature, where its own first case of an unsupported value fails as fast: it says why not
    skips_probe: str = ""
    # set for a control run (suites/worker.control_case): run() leaves opconform's own reading of
    # the outputs out where the adapter can (every CompiledModelBackend; OpenVINO's conversions)
    leave_outputs_unread: bool = False

    def __init__(self) -> None:
        self._models: OrderedDict[Hashable, Any] = OrderedDict()
        self._signatures: dict[Hashable, Hashable] = {}  # quick_key -> signature, for cases with expected outputs
        self._accepted: dict[str, str | None] = {}  # spec id -> accepts()
        self._build_seconds = 0.0
        self._ahead_seconds = 0.0  # a share of a build done ahead (ahead()), charged to the case that takes it
        self.models_built = 0

    # ----------------------------------------------------------- to override
    def version(self) -> str:
        return "unknown"

    def warm_up(self) -> None:
        """One-time costs (imports, probes) paid when a worker starts, not by its first case."""

    def _container_refusal(self, spec: SpecVersion, case: Case) -> str | None:
        """Why a tensors-only backend cannot take this case: it feeds, or asks for, a sequence,
        optional or map value (a port admitting both kinds, drawn as a container here)."""
        if self.takes_containers:
            return None
        if any(x is not None and not isinstance(x, np.ndarray) for x in case.inputs):
            return f"{self.name} takes tensors only; this case of {spec.id} feeds a sequence, optional or map"
        expected = case.expected.alternatives[0].outputs if case.expected.kind == "outputs" and case.expected.alternatives else ()
        if any(y is not None and not isinstance(y, np.ndarray) for y in expected):
            return f"{self.name} takes tensors only; this case of {spec.id} answers a sequence, optional or map"
        return None

    def accepts(self, spec: SpecVersion) -> str | None:
        """None when this backend takes the spec version, else why not (-> verdict unsupported)."""
        if spec.dialect not in self.dialects:
            named = ", ".join(self.dialects[:-1]) + " and " + self.dialects[-1] if len(self.dialects) > 1 else self.dialects[0]
            return f"{self.name} runs {named} specs only, not {spec.dialect}"
        # a port that admits tensors too (Identity's, OptionalHasElement-18's) is decided per case
        if not self.takes_containers and any(p.types and all(containers.is_container_type(t) for t in p.types)
                                             for p in spec.inputs + spec.outputs):
            return f"{self.name} takes tensors only; {spec.id} has a sequence, optional or map port"
        return None

    def signature(self, spec: SpecVersion, case: Case) -> Hashable:
        """Cases with equal signatures share one built model."""
        from opconform.generator import onnx_model

        return onnx_model.signature(spec, case)

    def prepare(self, spec: SpecVersion, case: Case) -> Any:
        """Build (compile, create a session for) the model of this case's signature."""
        raise NotImplementedError

    def run(self, prepared: Any, spec: SpecVersion, case: Case) -> Sequence[np.ndarray | None]:
        """Run one case on a prepared model: one entry per spec output (None where not asked)."""
        raise NotImplementedError

    def classify(self, exc: BaseException, stage: str) -> str:
        """'unsupported' when the backend says it does not implement this (type, attribute, opset),
        else 'error'. stage is 'build' or 'run'."""
        return "error"

    def ahead(self, items: Sequence[tuple[SpecVersion, Case]], progress: Callable[[], None] = lambda: None) -> None:
        """The cases a worker is about to run, in order: a backend may build their signatures' models
        now, together, where that costs less than one by one (an IREE compile of several models at
        once), calling progress() after each part of that work (each part then gets a whole case
        timeout). Only a saving: execute() gives each case exactly what building its model alone would."""

    def refusal(self, spec: SpecVersion, case: Case) -> str | None:
        """Why this backend takes no case like this one (-> verdict unsupported), or None."""
        # accepts() depends on the spec version alone, and a worker asks it for every case
        accepted = self._accepted.get(spec.id, False)
        if accepted is False:
            accepted = self._accepted[spec.id] = self.accepts(spec)
        return accepted or self._container_refusal(spec, case)

    def release(self) -> None:
        """Let go of every built model, so that the runtime's destructors run now (a control run's end)."""
        self._models.clear()

    def spent(self) -> bool:
        """True when this process should be replaced by a fresh one once its cases are done: the
        runtime holds on to something per model that letting go of the model does not free (TVM
        never unloads a compiled library)."""
        return False

    # ------------------------------------------------------------ the driver
    def timed_build(self, fn, *args):
        """Call a model build from inside run() so that its time counts as build time."""
        t0 = perf_counter()
        try:
            return fn(*args)
        finally:
            self._build_seconds += perf_counter() - t0
            self.models_built += 1

    def execute(self, spec: SpecVersion, case: Case, quick: Hashable | None = None) -> Outcome:
        """Build (or find built) the case's model and run the case on it. quick: the case's
        quick_key where the caller has it already (the runner groups cases by it)."""
        reason = self.refusal(spec, case)
        if reason:
            return Outcome("unsupported", message=reason)
        key = self._signature_of(spec, case, quick)
        self._build_seconds = 0.0
        entry = self._models.get(key)
        if entry is None:
            t0 = perf_counter()
            try:
                with phase("backend"):
                    entry = self.prepare(spec, case)
            except HarnessError:
                raise
            except Exception as e:  # noqa: BLE001 - a backend may raise anything; we classify it
                if phase_of(e) == "harness":  # adapter code marked as opconform's own
                    raise HarnessError.of(e) from e
                entry = _Failed(self.classify(e, "build"), short_message(e))
                let_go(e)
            self.models_built += 1
            # the model it displaces from the cache is torn down by the runtime's own destructors:
            # part of the model's build cost (the backend's code), not the harness's
            self._remember(key, entry)
            # set, not added to: a per-shape build prepare() made through timed_build lies within it
            self._build_seconds = perf_counter() - t0 + self._ahead_seconds
            self._ahead_seconds = 0.0
        else:
            self._models.move_to_end(key)
        if isinstance(entry, _Failed):
            return Outcome(entry.status, message=entry.message, build_seconds=self._build_seconds)
        before, t0 = self._build_seconds, perf_counter()
        self.compiled_as = ""
        try:
            with phase("backend"):
                outputs = list(self.run(entry, spec, case))
            status, message = "ok", ""
        except HarnessError:
            raise
        except BuildFailed as e:
            outputs, status, message = [], self.classify(e.cause, "build"), short_message(e.cause)
        except Exception as e:  # noqa: BLE001
            if phase_of(e) == "harness":
                raise HarnessError.of(e) from e
            outputs, status, message = [], self.classify(e, "run"), short_message(e)
            let_go(e)
        # builds done inside run() (per-shape fallbacks) count as build time, not run time
        run_seconds = perf_counter() - t0 - (self._build_seconds - before)
        return Outcome(status, outputs, message, backend_seconds=max(run_seconds, 0.0), build_seconds=self._build_seconds,
                       compiled=self.compiled_as)

    def _signature_of(self, spec: SpecVersion, case: Case, quick: Hashable | None = None) -> Hashable:
        """signature(), remembered per quick_key where that determines it: the builder's signature
        infers output types, which costs more than the run. With expected outputs their types
        decide; for a must-refuse case the broken relation does (the builder gives its outputs
        rank 0, whatever the shapes), so it joins the key."""
        exp = case.expected
        if not exp.alternatives and exp.kind == "outputs":
            return self.signature(spec, case)
        quick = (quick_key(spec.id, case) if quick is None else quick, exp.kind, exp.relation)
        if exp.alternatives and type(self).signature is Backend.signature:
            # expected outputs make the quick key determine the builder's signature: it is the key
            # itself (computing the signature infers output types, costing more than the run)
            return quick
        key = self._signatures.get(quick)
        if key is None:
            if len(self._signatures) > 4 * self.cache_size:
                self._signatures.clear()
            key = self._signatures[quick] = self.signature(spec, case)
        return key

    def _remember(self, key: Hashable, entry: Any) -> None:
        self._models[key] = entry
        # a model let go runs the runtime's own code (its destructors): a death there is the backend's
        with phase("backend"):
            while len(self._models) > self.cache_size:
                self._models.popitem(last=False)
