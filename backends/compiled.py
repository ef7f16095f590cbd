"""A backend that compiles one model per case signature and runs cases on it.

The runtime compiles the model with dynamic dimensions where it can. Some cannot compile an
operator that way (OpenVINO's CPU plugin for GatherND, tract for shape-dependent outputs); a
backend says so in needs_static(), and the signature then gets one model per concrete input shape,
built lazily and counted as build time.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Callable, Sequence

import numpy as np

from opconform.backends.base import Backend, BuildFailed, HarnessError, harness_message, phase, short_message
from opconform import containers
from opconform.model import Case, SpecVersion

# how many models ahead() builds for one batch at most (the runner's batches hold 64 cases), and how
# many it hands load_many() at a time: it reports progress after each call, and the pool gives the
# next call a whole case timeout (worker.look_ahead), so that no joint compile of large models has
# to share one timeout with others
AHEAD_LIMIT = 64
AHEAD_CHUNK = 8


@dataclass
class ModelIO:
    """How a case's arrays map onto a built model's inputs and outputs."""

    input_names: list[str]
    fed: list[int]  # positions in case.inputs fed as model inputs (present, not constant)
    output_names: list[str]
    output_slots: list[int]  # output slot of each model output (see onnx_model.output_slots)
    slot_count: int = 0  # how many slots the case's outputs have (a variadic port has several)
    # the type string of each model output (opconform.containers), where the builder declares one:
    # a sequence, optional or map output comes back in the runtime's Python form and is read by it
    output_types: list[str | None] = field(default_factory=list)

    @staticmethod
    def fed_positions(case: Case) -> list[int]:
        constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
        return [i for i, x in enumerate(case.inputs) if x is not None and not constant[i]]

    @staticmethod
    def slots(spec: SpecVersion, case: Case) -> list[tuple[int, str]]:
        """(spec output port, node output name or "" when not asked) per output slot: one per
        port, a variadic last port one per value (Split's parts)."""
        from opconform.generator import onnx_model

        return onnx_model.output_slots(spec, case)

    @staticmethod
    def requested_slots(spec: SpecVersion, case: Case) -> list[int]:
        return [j for j, (_, name) in enumerate(ModelIO.slots(spec, case)) if name]

    @staticmethod
    def count_slots(spec: SpecVersion, case: Case) -> int:
        """Outcome.outputs has one entry per slot, and at least one per spec output."""
        return max(len(spec.outputs), len(ModelIO.slots(spec, case)))

    def feeds(self, case: Case) -> dict[str, np.ndarray]:
        """Arrays by input name; a sequence as a list, a map as a dict, an optional as its value or
        None (the Python forms ONNX runtimes take)."""
        return {n: containers.to_python(case.inputs[i]) for n, i in zip(self.input_names, self.fed)}

    def place(self, spec: SpecVersion, got: Sequence[Any]) -> list[np.ndarray | None]:
        """One entry per output slot, None where not asked (or not returned)."""
        out: list[np.ndarray | None] = [None] * max(self.slot_count, len(spec.outputs), max(self.output_slots, default=-1) + 1)
        types = self.output_types or [None] * len(self.output_slots)
        for slot, value, t in zip(self.output_slots, got, types):
            if t is not None and containers.is_container_type(t):
                try:
                    out[slot] = containers.from_python(value, t)  # an empty optional comes back as None
                except TypeError:  # another kind than the model declares: judged as what it is
                    out[slot] = containers.guess_from_python(value)
            elif isinstance(value, (list, tuple, dict)):  # a container where the model declares a tensor
                out[slot] = containers.guess_from_python(value)
            else:
                out[slot] = None if value is None else np.asarray(value)
        return out


@dataclass
class Prepared:
    model: Any
    io: ModelIO
    handle: Any = None  # the compiled model, when dynamic dimensions work
    per_shape: OrderedDict = field(default_factory=OrderedDict)  # input shapes -> handle, otherwise
    fixed: str = "all"  # which inputs a per-shape model fixes (static_shapes): "all", or a backend's narrower choice


class CompiledModelBackend(Backend):
    """Subclasses implement build_model, io_of, load, infer, and specialize where needs_static can hold."""

    per_shape_cache = 32
    # exception types that building the model raises when the runtime itself refuses it (OpenVINO
    # validates each node as the Python API creates it); anything else building raises is ours
    backend_errors_in_build: tuple[type[BaseException], ...] = ()
    loads_together = False  # whether load_many() is implemented (ahead() then builds a batch's models at once)

    def __init__(self) -> None:
        super().__init__()
        # signature key -> (Prepared, what load_many gave, seconds): built by ahead() for prepare()
        self._ahead: dict[Any, tuple[Prepared, Any, float]] = {}

    def build_model(self, spec: SpecVersion, case: Case) -> Any:
        raise NotImplementedError

    def io_of(self, spec: SpecVersion, case: Case, model: Any) -> ModelIO:
        raise NotImplementedError

    def load(self, model: Any) -> Any:
        """Compile a model; raise as the runtime does."""
        raise NotImplementedError

    def load_many(self, models: list[Any]) -> list[Any]:
        """load() of each model, done together where the runtime does that for less (several models
        in one compile): per model the handle, or the exception load() would raise for it, or None
        where that is not known (load() then runs as usual). A backend that has it says so in
        loads_together; ahead() uses it."""
        raise NotImplementedError

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        """Run it; one array per model output, in model order. Code of opconform's own in here
        (converting arrays to the runtime's tensors and back) runs in phase("harness"): an exception
        there is a harness-error, not the backend's error."""
        raise NotImplementedError

    def needs_static(self, exc: BaseException) -> bool:
        """True when a build failed only because dimensions were dynamic."""
        return False

    def specialize(self, model: Any, shapes: dict[str, tuple[int, ...]]) -> Any:
        """The model with its input dimensions fixed to these shapes."""
        raise NotImplementedError

    def ahead(self, items: Sequence[tuple[SpecVersion, Case]], progress: Callable[[], None] = lambda: None) -> None:
        """Build the models of the signatures these cases need that no model is cached for, and
        load them with load_many(), AHEAD_CHUNK at a time (progress() after each); prepare() then
        takes each from there. A case this backend refuses, or whose model opconform fails to build,
        is left to its own run to say so."""
        self._ahead = {}
        if not self.loads_together:
            return
        todo: dict[Any, Prepared] = {}
        for spec, case in items:
            if len(todo) >= AHEAD_LIMIT:
                break
            if self.refusal(spec, case):
                continue
            key = self._signature_of(spec, case)
            if key in self._models or key in todo:
                continue
            try:
                todo[key] = self._build(spec, case)
            except Exception:  # noqa: BLE001 - the case's own run builds it again and says what failed
                continue
        if len(todo) < 2:
            return
        pending = list(todo.items())
        for start in range(0, len(pending), AHEAD_CHUNK):
            chunk = pending[start:start + AHEAD_CHUNK]
            t0 = perf_counter()
            with phase("backend"):
                loaded = self.load_many([p.model for _, p in chunk])
            share = (perf_counter() - t0) / len(chunk)
            self._ahead.update((key, (prepared, result, share)) for (key, prepared), result in zip(chunk, loaded)
                               if result is not None)
            progress()

    def prepare(self, spec: SpecVersion, case: Case) -> Prepared:
        ahead = self._ahead.pop(self._signature_of(spec, case), None) if self._ahead else None
        prepared = ahead[0] if ahead is not None else self._build(spec, case)
        try:
            prepared.handle = self._loaded_ahead(ahead) if ahead is not None else self.load(prepared.model)
        except Exception as e:
            if not self.needs_static(e):
                raise
            # try this case's shapes now: failing the same way, it was never about the dimensions,
            # and the whole signature fails at once instead of once per shape
            with phase("harness"):
                feeds = prepared.io.feeds(case)
            try:
                self._static_handle(prepared, feeds)
            except BuildFailed as again:
                if short_message(again.cause) == short_message(e):
                    raise again.cause from None
        return prepared

    def release(self) -> None:
        self._ahead.clear()
        super().release()

    def _loaded_ahead(self, ahead: tuple[Prepared, Any, float]) -> Any:
        """What load() gave for this model in ahead()'s load_many, raised again where it raised;
        its share of that load counts as this case's build time."""
        _, result, share = ahead
        self._ahead_seconds += share
        if isinstance(result, BaseException):
            raise result
        return result

    def _build(self, spec: SpecVersion, case: Case) -> Prepared:
        # building the model is opconform's work, unless the runtime checks nodes as they are made
        with phase("backend" if self.backend_errors_in_build else "harness"):
            try:
                model = self.build_model(spec, case)
            except self.backend_errors_in_build:  # () catches nothing
                raise
            except Exception as e:
                raise HarnessError(f"building the model failed: {harness_message(e)}") from e
        with phase("harness"):
            try:
                return Prepared(model, self.io_of(spec, case, model))
            except Exception as e:
                raise HarnessError(f"mapping the model's inputs and outputs failed: {harness_message(e)}") from e

    def run(self, prepared: Prepared, spec: SpecVersion, case: Case) -> list[np.ndarray | None]:
        with phase("harness"):
            feeds = prepared.io.feeds(case)
        # what the report says of a backend: one compile with dynamic dimensions, or one per shape
        self.compiled_as = "dynamic" if prepared.handle is not None else "per-shape"
        handle = prepared.handle if prepared.handle is not None else self._static_handle(prepared, feeds)
        got = self.infer(handle, feeds, prepared.io.output_names)
        if self.leave_outputs_unread:
            return []
        with phase("harness"):
            return prepared.io.place(spec, got)

    def static_shapes(self, prepared: Prepared, feeds: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        """The input shapes a per-shape model fixes, which are also its cache key: every input's,
        unless a backend compiles some inputs dynamic still (OpenVINO, per prepared.fixed)."""
        return {n: a.shape for n, a in feeds.items()}

    def _static_handle(self, prepared: Prepared, feeds: dict[str, np.ndarray]) -> Any:
        shapes = self.static_shapes(prepared, feeds)
        key = tuple(shapes.items())
        handle = prepared.per_shape.get(key)
        if handle is None:
            # fixing the shapes is opconform's work, unless the runtime checks the model as it is changed
            with phase("backend" if self.backend_errors_in_build else "harness"):
                static = self.specialize(prepared.model, shapes)
            try:
                handle = self.timed_build(self.load, static)
            except Exception as e:
                handle = BuildFailed(e)  # remembered: the same shapes fail the same way
            prepared.per_shape[key] = handle
            while len(prepared.per_shape) > self.per_shape_cache:
                prepared.per_shape.popitem(last=False)
        if isinstance(handle, BuildFailed):
            raise handle
        return handle
