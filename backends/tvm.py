"""Apache TVM: ONNX imported by its Relax frontend, compiled for llvm (the CPU), run by its
virtual machine (extra: tvm).

The frontend keeps the graph inputs' symbolic dimensions, so one compile serves a signature;
where a conversion needs a dimension's value (it reads a shape as numbers) the build fails and
is retried with the case's shapes (needs_static). Compiling runs in-process: a crash of LLVM or
of TVM's passes kills the worker, which the runner reports as a crash."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
import onnx

from opconform.backends import compile_cache, compile_deaths
from opconform.backends.base import phase
from opconform.backends.onnx_base import OnnxBackend

# how TVM says it does not implement something: an operator the frontend has no converter for
# (OpNotImplemented), a converter that refuses an attribute, a mode or an axes input that is not
# constant, an operator or element type it has no mapping for (float16 asin has no LLVM intrinsic)
_UNSUPPORTED = ("opnotimplemented", "not supported", "unsupported", "not implemented", "notimplemented",
                "is not a valid", "unknown dtype", "cannot convert type", "does not support",
                "only constant", "must be a constant", "requires the input tensor to have", "unknown intrinsic",
                # its runtime's NumPy bridge does not pack sub-byte arrays (int4, int2) it compiles for
                "tensorcopyfrombytes: size mismatch",
                # a converter's stated limit ("Only resize1d/resize2d/resize3d are supported.") and
                # Reshape's refusal of a shape that is not a constant (a graph input)
                "are supported", "requires the input new shape to be shape",
                # a converter that leaves out outputs it does not compute (BatchNormalization's
                # training outputs: "Missing outputs during conversion. Expected 5 but Got 3")
                "missing outputs during conversion")
# how many compiled libraries a worker loads before it asks to be replaced (Backend.spent): TVM never
# unloads one, and each holds 5 memory mappings (the kernel's default limit is 65,530 a process) and
# some 20 kB; a worker of a ci run loads some 15,000
LIBRARIES_PER_WORKER = 4000

# ... and that a build may have failed only because a dimension was symbolic (LegalizeOps leaves an
# operator whose broadcast it cannot prove for symbolic dimensions to a VM that cannot run it)
_DYNAMIC = ("dynamic", "symbolic", "primexpr", "tir.var", "intimm", "static", "expected int",
            "codegenvm cannot emit",
            # a converter that reads a dimension as a number (AveragePool's auto_pad: int(shape[i]))
            "not 'var'")


@dataclass
class Compiled:
    vm: Any  # relax.VirtualMachine over the built executable
    device: Any


class TvmBackend(OnnxBackend):
    name = "tvm"
    skips_probe = "a compiler: each probe is a compile, and the run's own first case of a value it refuses fails as fast"

    def __init__(self) -> None:
        super().__init__()
        # one thread per worker: the runner already runs --jobs workers side by side (read when
        # TVM's thread pool starts, so before the import)
        os.environ.setdefault("TVM_NUM_THREADS", "1")
        with _without_torch():
            import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx

        self._tvm, self._relax, self._from_onnx = tvm, relax, from_onnx
        self._target = tvm.target.Target("llvm")
        self._device = tvm.cpu()
        # compiled models kept between runs as shared libraries (a cold run loads the library it
        # just wrote too, so that cold and warm runs run the same code)
        self.cache = compile_cache.for_backend(self.name, [self.version(), str(self._target), "keep_params_in_input=False"],
                                               [__file__])
        self.libraries_loaded = 0

    def version(self) -> str:
        return str(self._tvm.__version__)

    def load(self, model: onnx.ModelProto) -> Any:
        data = model.SerializeToString()
        name = compile_deaths.model_name(data)
        if self.cache is not None:
            hit = self.cache.lookup(name)
            if hit is not None and hit.failure is not None:
                raise hit.failure
            if hit is not None:
                try:
                    return self._loaded(hit.artifact)
                except Exception:  # noqa: BLE001 - a library this TVM cannot load: compiled afresh, and replaced
                    pass
            self.cache.keep_lost(self.name)
        try:
            # compiled in-process: LLVM or a pass that segfaults kills the worker, and the mark keeps
            # the next worker from compiling the same model again for each case of the signature
            with compile_deaths.watched(self.name, data, compile_deaths.described(model)):
                module = self._from_onnx(model, keep_params_in_input=False)
                executable = self._tvm.compile(module, target=self._target)
                kept = self.cache and self.cache.keep_artifact(lambda path: executable.export_library(str(path), fcompile=_link),
                                                               ".so", {name: "main"})
        except Exception as e:
            if self.cache is not None:
                self.cache.keep_failure(name, e, self.classify(e, "build"), self.needs_static(e))
            raise
        return self._loaded(kept) if kept else Compiled(self._relax.VirtualMachine(executable, self._device), self._device)

    def _loaded(self, library: Any) -> Compiled:
        self.libraries_loaded += 1
        return Compiled(self._relax.VirtualMachine(self._tvm.runtime.load_module(str(library)), self._device), self._device)

    def spent(self) -> bool:
        return self.libraries_loaded >= LIBRARIES_PER_WORKER

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        with phase("harness"):
            arrays = [np.require(a, requirements="C") for a in feeds.values()]
        # the runtime's own NumPy bridge, both ways: where it refuses a type, TVM refuses it
        got = handle.vm["main"](*[self._tvm.runtime.tensor(a, handle.device) for a in arrays])
        with phase("harness"):
            tensors = _flat(got, self._tvm.runtime.ShapeTuple)
        host = [t.numpy() if hasattr(t, "numpy") else t for t in tensors]
        with phase("harness"):
            return [np.asarray(x) for x in host]

    def needs_static(self, exc: BaseException) -> bool:
        if isinstance(exc, compile_cache.Remembered):
            return exc.static
        return any(s in str(exc).lower() for s in _DYNAMIC)

    def classify(self, exc: BaseException, stage: str) -> str:
        if isinstance(exc, compile_cache.Remembered):
            return exc.status
        if isinstance(exc, compile_deaths.CompileDied):
            return "crash"
        text = f"{type(exc).__name__}: {exc}".lower()
        return "unsupported" if any(s in text for s in _UNSUPPORTED) else "error"


def _link(output: str, objects: list[str], options: Any = None, **kwargs: Any) -> None:
    """Link the compiled objects into a shared library: with `ld` alone where there is one (some 5
    ms), not TVM's default of the C++ compiler's driver (some 40 ms more a model, and a ci run
    has some 30,000); where ld refuses, the default."""
    if shutil.which("ld") and subprocess.run(["ld", "-shared", "-o", output, *objects], capture_output=True).returncode == 0:
        return
    from tvm.contrib import cc

    cc.create_shared(output, objects, options)


_link.output_format = "so"  # type: ignore[attr-defined] - what export_library asks of an fcompile


@contextmanager
def _without_torch() -> Iterator[None]:
    """TVM's FFI imports torch whenever it is installed (the torch extra), only to order the loading
    of shared libraries on Windows: in a worker that is 10 to 20 s and 600 MB more per start, for a
    backend that never uses torch. Where torch is not loaded yet, its import fails for that while."""
    if "torch" in sys.modules:
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment] - None makes `import torch` raise ImportError
    try:
        yield
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


def _flat(value: Any, shape_type: type) -> list[Any]:
    """The VM returns one tensor, or a tuple (TVM's Array) of them for several outputs. An output
    the frontend keeps as a shape (Shape's: a ShapeTuple of ints, not a tensor) is read as int64,
    as TVM's own ONNX frontend tests read it, and a bare Python number as NumPy makes it."""
    if hasattr(value, "numpy"):
        return [value]
    if isinstance(value, shape_type):
        return [np.array([int(d) for d in value], dtype=np.int64)]
    if isinstance(value, (bool, int, float)):
        return [np.asarray(value)]
    return [x for item in value for x in _flat(item, shape_type)]
