"""Compiles that killed their worker, remembered by the run's other workers.

A backend that compiles in its own process (TVM) takes the worker down with it when the compiler
segfaults. A signature's build result is cached per worker (CompiledModelBackend), but a death
cannot be: the next worker would compile the same model again and die again, once per case of the
signature (16 worker deaths for the float6 cases of one Relu run). So a compile leaves a mark
while it runs, in a folder the run's workers share; a mark left behind means that compiling
exactly these model bytes never returned, and the next worker answers CompileDied at once instead
of compiling again. The folder belongs to the workers' parent process (the pool's fork server),
so each run starts with none.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import onnx


class CompileDied(RuntimeError):
    """Compiling this model killed (or hung) an earlier worker of this run: a crash of the backend."""


def _folder(backend: str) -> Path:
    parent = os.getppid()
    try:  # the parent's start time too: a pid can be reused by a later run
        started = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        started = "0"
    return Path(tempfile.gettempdir()) / f"opconform-compiling-{backend}-{parent}-{started}"


def model_name(model_bytes: bytes) -> str:
    """A model's name in the marks (and in compile_cache)."""
    return hashlib.sha256(model_bytes).hexdigest()[:32]


def _died(earlier: str) -> CompileDied:
    return CompileDied(f"compiling this same model did not return in an earlier worker (it died or hung): {earlier}")


def lost(backend: str) -> list[tuple[str, CompileDied]]:
    """The models whose compile a dead worker of this run left marked, by name, as watched() answers them."""
    found = []
    try:
        marks = [p for p in _folder(backend).iterdir() if "." not in p.name]
    except OSError:
        return []
    for mark in marks:
        try:
            owner, earlier = mark.read_text().split("\n", 1)
        except (OSError, ValueError):
            continue
        if not _alive(int(owner)):
            found.append((mark.name, _died(earlier)))
    return found


@contextmanager
def watched(backend: str, model_bytes: bytes, what: str) -> Iterator[None]:
    """Compile inside this: raises CompileDied where the same bytes killed a worker before.
    what: how the mark names the compile (the first case's signature, for the message)."""
    mark = _folder(backend) / model_name(model_bytes)
    try:
        owner, earlier = mark.read_text().split("\n", 1)
    except (OSError, ValueError):
        owner = None
    if owner is not None and not _alive(int(owner)):
        raise _died(earlier)
    if owner is not None:
        mark = None  # another worker compiles it now (a signature's cases split over two batches)
    else:
        try:
            mark.parent.mkdir(parents=True, exist_ok=True)
            tmp = mark.with_suffix(f".{os.getpid()}")
            tmp.write_text(f"{os.getpid()}\n{what}")
            os.replace(tmp, mark)
        except OSError:
            mark = None  # no mark, no memory: a death only costs one more worker
    try:
        yield
    finally:  # returned or raised: the compile did not kill the process
        if mark is not None:
            mark.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether the process runs (a dead worker not yet reaped is a zombie: dead)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def described(model: onnx.ModelProto) -> str:
    """The model as a mark names it: its operators, and its inputs' element types and dimensions."""
    inputs = [f"{onnx.TensorProto.DataType.Name(i.type.tensor_type.elem_type)}"
              f"[{','.join(str(d.dim_value or d.dim_param) for d in i.type.tensor_type.shape.dim)}]" for i in model.graph.input]
    return f"{', '.join(n.op_type for n in model.graph.node)} on {', '.join(inputs) or 'no inputs'}"
