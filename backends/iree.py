"""IREE: ONNX imported with IREE's ONNX importer, compiled for llvm-cpu, run by its runtime (extra: iree).

The importer (iree.compiler.extras.onnx_importer, what `iree-import-onnx` runs) turns the model
into MLIR in-process; `iree-compile` compiles it in a child process, as IREE's own Python API
does, so that its diagnostics come back as text. The child dies with the worker (a compile hung
past the runner's timeout leaves nothing running), and a compiler killed by a signal is a crash of
the backend, not a refusal. A compile that runs far past the slowest seen (COMPILE_SECONDS)
is killed by the adapter itself and is the case's `timeout`: the worker lives on, and the hang is
kept like any failure. Dimensions stay dynamic; only a compile that fails on them is retried with
the case's shapes (needs_static)."""
from __future__ import annotations

import ctypes
import re
import signal
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import onnx

from opconform import dtypes
from opconform.backends import compile_cache, compile_deaths
from opconform.backends.base import phase
from opconform.backends.onnx_base import OnnxBackend

# flags of iree-compile: ONNX input (torch-mlir's onnx conversions), the local CPU device, code
# for this machine's CPU (a generic CPU only warns and runs slower), and float64 kept float64:
# by default IREE demotes it to float32, and a model that says float64 asks for float64
COMPILE_FLAGS = ("--iree-input-type=onnx", "--iree-hal-target-device=local",
                 "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
                 "--iree-input-demote-f64-to-f32=false")

# how IREE says it does not implement something: no conversion for the ONNX operator (or what it
# became) with these types and attributes, or an element type the importer or runtime has no
# mapping for
_UNSUPPORTED = ("failed to legalize operation", "unsupported", "not supported", "not implemented",
                "unimplemented", "unknown element type", "unhandled", "does not support",
                # the importer's and the runtime's NumPy bridge's words for an element type they have
                # no mapping for (float8, float4, int4: "Unknown ONNX tensor element type: 23", "could
                # not map dtype dtype(int4) to element type")
                "unknown onnx tensor element type", "could not map dtype",
                # a math function llvm-cpu has no code for at that type: float64 acos, kept float64
                # (COMPILE_FLAGS), is left to a libm the executable does not link
                "undefined symbol")
# ... and that a compile may have failed only because a dimension was not known: some conversions
# take only static shapes and say nothing more than that no conversion matched (GatherND's)
_DYNAMIC = ("failed to legalize", "dynamic", "static shape", "static dim", "statically")
# seconds an iree-compile may run before it is taken for hung: the slowest compile of a ci run on
# this 2-core machine took 1.5 s (8 models together, both cores busy), and IREE 3.13 never finishes
# NonMaxSuppression with some static shapes (boxes [3, 2, 4]: still compiling after 300 s). A model
# like one that hung (the same graph, other shapes) gets AFTER_HANG_SECONDS, still 4 times the
# slowest compile: NonMaxSuppression's per-shape retries would otherwise cost the ci run a whole
# limit for each of its some 200 shapes
COMPILE_SECONDS = 20.0
AFTER_HANG_SECONDS = 6.0
_LOCATED_ERROR = re.compile(r"^<stdin>:(\d+):\d+: error: ")
_FUNCTION_LINE = re.compile(r"^  func\.func @(m\d+)\(")
_VTENSOR = re.compile(r"!torch\.vtensor<\[([^\]]*)\],(complex<[^>]+>|[^>]+)>")


class CompilerDied(RuntimeError):
    """iree-compile was killed by a signal: a crash of the backend (classify: 'crash')."""


class CompileHung(RuntimeError):
    """iree-compile ran past its limit and was killed (classify: 'timeout')."""


class CompileFailed(RuntimeError):
    """iree-compile refused the module; the message is its diagnostics."""


@dataclass
class Compiled:
    function: Any  # the module's entry function
    declared: list[np.dtype | None]  # the model's output element types, where NumPy has them


class IreeBackend(OnnxBackend):
    name = "iree"
    loads_together = True
    skips_probe = "a compiler: each probe is a compile, and the run's own first case of a value it refuses fails as fast"

    def __init__(self) -> None:
        super().__init__()
        import iree.runtime
        from iree.compiler.extras import onnx_importer
        from iree.compiler.tools.binaries import find_tool

        self._runtime, self._importer = iree.runtime, onnx_importer
        self._compile_tool = find_tool("iree-compile")
        # local-sync: one thread per worker, the runner already runs --jobs workers side by side
        self._config = iree.runtime.Config("local-sync")
        # compiled modules kept between runs (.vmfb; models compiled together share one)
        self.cache = compile_cache.for_backend(self.name, [self.version(), *COMPILE_FLAGS], [__file__])
        self._opened: OrderedDict[Path, Any] = OrderedDict()  # kept .vmfb -> its loaded functions
        self.compile_seconds, self.after_hang_seconds = COMPILE_SECONDS, AFTER_HANG_SECONDS
        self._hung: set[str] = set()  # _family() of models whose compile hung in this worker

    def version(self) -> str:
        from iree.compiler.version import VERSION as compiler
        from iree.runtime.version import VERSION as runtime

        return compiler if compiler == runtime else f"compiler {compiler}, runtime {runtime}"

    def load(self, model: onnx.ModelProto) -> Any:
        data = model.SerializeToString()
        name = compile_deaths.model_name(data)
        kept = self._kept(name, model)
        if kept is not None:
            if isinstance(kept, BaseException):
                raise kept
            return kept
        from iree.compiler import ir

        try:
            # the import runs in-process, onnx's shape inference first (it segfaults on GatherND-12 with a
            # negative batch_dims): the mark keeps the next worker from importing the same model again
            with compile_deaths.watched(self.name, data, compile_deaths.described(model)):
                module = self._import(model, ir.Context(), "main")
                vmfb = self._compile(module.operation.get_asm(binary=True), _family(model))
        except Exception as e:
            self._keep_failure(name, e)
            raise
        return self._entries(vmfb, {0: "main"}, [model], [name])[0]

    def load_many(self, models: list[onnx.ModelProto]) -> list[Any]:
        """Each model imported alone, then their functions compiled together in one iree-compile
        (its fixed cost, some 0.7 s, is most of a small model's compile; how many at a time is the
        caller's choice: CompiledModelBackend.ahead gives AHEAD_CHUNK). Where the
        joint compile fails, the functions its errors point at get those errors (what compiling
        each alone says) and the rest are compiled again; a compiler that dies, or errors that
        point at no function, split the group in halves, down to single models compiled as load()
        compiles them; a joint compile that hangs has each model compiled alone (one hung model
        then costs two limits, not one per halving). Models kept from an earlier compile are loaded,
        not compiled."""
        from iree.compiler import ir

        context = ir.Context()
        results: list[Any] = [None] * len(models)
        imported: dict[int, Any] = {}
        data = [model.SerializeToString() for model in models]
        names = [compile_deaths.model_name(d) for d in data]
        for i, model in enumerate(models):
            results[i] = self._kept(names[i], model)
            if results[i] is not None:
                continue
            try:
                with compile_deaths.watched(self.name, data[i], compile_deaths.described(model)):
                    module = self._import(model, context, f"m{i}")
            except Exception as e:  # noqa: BLE001 - what load() raises for this model
                self._keep_failure(names[i], e)
                results[i] = e
                continue
            if len(module.body.operations) == 1:  # a model imported as several functions is left to load()
                imported[i] = module
        self._compile_together(imported, models, names, results)
        return results

    def _kept(self, name: str, model: onnx.ModelProto) -> Any:
        """The model's kept compile loaded (its Compiled, or the failure to raise), or None."""
        if self.cache is None:
            return None
        hit = self.cache.lookup(name)
        if hit is None:
            self.cache.keep_lost(self.name)
            return None
        if hit.failure is not None:
            return hit.failure
        functions = self._opened.pop(hit.artifact, None)
        if functions is None:
            try:
                functions = self._functions(hit.artifact.read_bytes())
            except (OSError, RuntimeError, ValueError):
                return None  # unreadable: compiled afresh, and replaced
        self._opened[hit.artifact] = functions
        while len(self._opened) > 16:
            self._opened.popitem(last=False)
        with phase("harness"):
            declared = [_numpy_of(o.type.tensor_type.elem_type) for o in model.graph.output]
        return Compiled(functions[hit.entry], declared)

    def _keep_failure(self, name: str, exc: BaseException) -> None:
        if self.cache is not None:
            self.cache.keep_failure(name, exc, self.classify(exc, "build"), self.needs_static(exc))

    def _compile_together(self, modules: dict[int, Any], models: list[onnx.ModelProto], names: list[str],
                          results: list[Any]) -> None:
        from iree.compiler import ir

        while len(modules) > 1:
            joint = ir.Module.create(ir.Location.unknown(next(iter(modules.values())).context))
            with ir.InsertionPoint(joint.body):
                for module in modules.values():
                    module.body.operations[0].clone()
            text = joint.operation.get_asm()
            try:
                proc = self._run_compiler(text.encode(), self.compile_seconds)
            except CompileHung:
                break
            if proc.returncode == 0:
                try:
                    handles = self._entries(proc.stdout, {i: f"m{i}" for i in modules}, models, names)
                except Exception:  # noqa: BLE001 - left to load(), model by model
                    return
                for i, handle in handles.items():
                    results[i] = handle
                return
            errors = proc.stderr.decode("utf-8", "replace") if proc.returncode > 0 else ""
            located = _errors_by_function(text, errors)
            if not located or located.get(None):  # it died, or said what no function's line shows
                items = list(modules.items())
                for half in (items[:len(items) // 2], items[len(items) // 2:]):
                    self._compile_together(dict(half), models, names, results)
                return
            for name, lines in located.items():
                i = int(name[1:])
                results[i] = CompileFailed(_diagnostics("\n".join(lines)))
                self._keep_failure(names[i], results[i])
                modules.pop(i, None)
        for i, module in modules.items():
            try:
                vmfb = self._compile(module.operation.get_asm(binary=True), _family(models[i]))
            except Exception as e:  # noqa: BLE001 - what load() raises for this model
                self._keep_failure(names[i], e)
                results[i] = e
                continue
            try:
                results[i] = self._entries(vmfb, {i: f"m{i}"}, models, names)[i]
            except Exception as e:  # noqa: BLE001 - what load() raises for this model
                results[i] = e

    def _entries(self, vmfb: bytes, entries: dict[int, str], models: list[onnx.ModelProto], names: list[str]) -> dict[int, Compiled]:
        """The compiled module loaded into the runtime: its function of each entry name, by model
        index; kept for the models of these names (by index) where the cache is on."""
        functions = self._functions(vmfb)
        if self.cache is not None:
            self.cache.keep_artifact(lambda path: path.write_bytes(vmfb), ".vmfb", {names[i]: e for i, e in entries.items()})
        with phase("harness"):
            declared = {i: [_numpy_of(o.type.tensor_type.elem_type) for o in models[i].graph.output] for i in entries}
        return {i: Compiled(functions[e], declared[i]) for i, e in entries.items()}

    def _functions(self, vmfb: bytes) -> Any:
        rt = self._runtime
        module = rt.VmModule.copy_buffer(self._config.vm_instance, vmfb)
        context = rt.SystemContext(vm_modules=[module], config=self._config)
        return context.modules[module.name]

    def _import(self, model: onnx.ModelProto, context: Any, name: str) -> Any:
        """The MLIR module of the model, as iree-import-onnx makes it (shapes inferred first, as it
        does), its function named `name`."""
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        inferred.graph.name = name
        info = self._importer.ModelInfo(inferred)
        module = info.create_module(context=context)
        self._importer.NodeImporter.define_function(info.main_graph, module.operation).import_all()
        module.operation.verify()
        return module

    def _run_compiler(self, mlir: bytes, limit: float) -> subprocess.CompletedProcess:
        try:
            return subprocess.run([self._compile_tool, "-", *COMPILE_FLAGS, "-o", "-"], input=mlir, capture_output=True,
                                  preexec_fn=_die_with_parent, timeout=limit)
        except subprocess.TimeoutExpired:  # run() has killed it
            raise CompileHung(f"iree-compile did not finish within {limit:g} s") from None

    def _compile(self, mlir: bytes, family: str = "") -> bytes:
        """The .vmfb; family: _family() of the model, whose earlier hang shortens the limit."""
        limit = self.after_hang_seconds if family in self._hung else self.compile_seconds
        try:
            proc = self._run_compiler(mlir, limit)
        except CompileHung as e:
            if family in self._hung:
                raise CompileHung(f"{e} (a compile of this graph with other shapes did not finish within "
                                  f"{self.compile_seconds:g} s)") from None
            self._hung.add(family)
            raise
        errors = proc.stderr.decode("utf-8", "replace")
        if proc.returncode < 0:
            raise CompilerDied(f"iree-compile died of {signal.Signals(-proc.returncode).name}{_crash_site(errors)}")
        if proc.returncode != 0:
            raise CompileFailed(_diagnostics(errors) or f"iree-compile exited with status {proc.returncode}")
        return proc.stdout

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        got = handle.function(*feeds.values())
        got = got if isinstance(got, (tuple, list)) else [got]
        # copied out of the runtime's mapping here, in the backend's phase: a buffer the compiled code
        # left unreadable (Pad-13 of some float inputs: a SIGSEGV on its first read) then kills the
        # worker in the backend's code, not later in opconform's judging of a view of it
        host = [(np.array(x.to_host(), copy=True), _signless(x)) if hasattr(x, "to_host") else (x, False) for x in got]
        with phase("harness"):
            return [_as_declared(np.asarray(x), declared, signless) for (x, signless), declared in zip(host, handle.declared)]

    def needs_static(self, exc: BaseException) -> bool:
        if isinstance(exc, compile_cache.Remembered):
            return exc.static
        return isinstance(exc, CompileFailed) and any(s in str(exc).lower() for s in _DYNAMIC)

    def classify(self, exc: BaseException, stage: str) -> str:
        if isinstance(exc, compile_cache.Remembered):
            return exc.status
        if isinstance(exc, CompileHung):
            return "timeout"
        if isinstance(exc, (CompilerDied, compile_deaths.CompileDied)):
            return "crash"
        text = str(exc).lower()
        return "unsupported" if any(s in text for s in _UNSUPPORTED) else "error"


def _family(model: onnx.ModelProto) -> str:
    """The model with the shapes of its inputs and outputs left out: a static retry's family is its
    dynamic model's."""
    graph = onnx.GraphProto()
    graph.CopyFrom(model.graph)
    for value in (*graph.input, *graph.output):
        value.type.tensor_type.ClearField("shape")
    del graph.value_info[:]
    return compile_deaths.model_name(graph.SerializeToString())


def _numpy_of(onnx_elem_type: int) -> np.dtype | None:
    t = dtypes.BY_ONNX.get(onnx_elem_type)
    return None if t is None or t.numpy is None else np.dtype(t.numpy)


def _signless(array: Any) -> bool:
    """Whether the runtime typed the array as an integer of no signedness (what torch-mlir's
    lowering leaves: the compiled ABI says i16, not si16 or ui16)."""
    element_type = int(array._buffer_view.element_type)
    return element_type >> 24 == 0x10  # IREE_HAL_NUMERICAL_TYPE_INTEGER, neither signed nor unsigned


def _as_declared(x: np.ndarray, declared: np.dtype | None, signless: bool) -> np.ndarray:
    """The runtime hands a signless integer to NumPy as signed: read its bits as the model's
    declared type where that is an integer of the same width. An integer the runtime calls
    signed or unsigned keeps the type it was given, so a wrong element type still shows as one."""
    if signless and declared is not None and declared.kind in "iu" and x.dtype.kind in "iu" \
            and declared.itemsize == x.dtype.itemsize:
        return x.view(declared)
    return x


def _diagnostics(stderr: str) -> str:
    """The compiler's error lines (the first ones first), without the notes and IR dumps around
    them, tensor types shown by element type and rank: a message that does not depend on the
    dimensions is the same for a signature's dynamic model and its static retry."""
    errors = [ln.split("error: ", 1)[1] for ln in stderr.splitlines() if "error: " in ln]
    text = "\n".join(errors) if errors else stderr.strip()
    return _VTENSOR.sub(lambda m: f"{m.group(2)}[rank {len(m.group(1).split(',')) if m.group(1) else 0}]", text)


def _errors_by_function(text: str, stderr: str) -> dict[str | None, list[str]]:
    """The compiler's error lines by the function (of a joint module's text) whose line they
    point at; None for those that point at no function's line."""
    starts = [(n, m.group(1)) for n, line in enumerate(text.splitlines(), 1) if (m := _FUNCTION_LINE.match(line))]
    found: dict[str | None, list[str]] = {}
    for line in stderr.splitlines():
        if "error: " not in line:
            continue
        m = _LOCATED_ERROR.match(line)
        at = int(m.group(1)) if m else 0
        owner = next((name for n, name in reversed(starts) if n <= at), None)
        found.setdefault(owner, []).append(line)
    return found


_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.+)$")


def _crash_site(stderr: str) -> str:
    """What a crashed compiler printed before its stack dump, and the innermost frame of its
    backtrace that is not the signal handling itself."""
    said = stderr.split("Please report issues")[0].split("Stack dump:")[0].strip()
    frames = [m.group(1) for m in map(_FRAME.match, stderr.splitlines()) if m]
    site = next((f for f in frames if not f.startswith(("llvm::sys::", "SignalHandler", "("))), "")
    return "".join(f" {part}" for part in (said.replace("\n", " | ")[:200], f"in {site[:200]}" if site else "") if part)


def _die_with_parent() -> None:
    """In the compiler's child process: be killed when the worker is (Linux), so that a hung
    compile the runner gives up on does not run on."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
