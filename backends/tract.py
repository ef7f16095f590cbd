"""tract (Sonos' Rust inference engine) through its Python binding (extra: tract).

tract loads ONNX from a path only, so each model passes through a temporary file: one name per
worker process, so that a worker tract kills while it loads a model leaves one file, which the next
worker to start removes. It often
cannot type a graph with symbolic dimensions; then the signature gets one model per input shape.
Some bad inputs make tract abort the whole process: the runner's worker isolation covers that."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Sequence

import numpy as np
import onnx

from opconform.backends.onnx_base import OnnxBackend

_PREFIX = "opconform-tract-"
_UNSUPPORTED = ("not supported", "unsupported", "not implemented", "unimplemented", "unknown datumtype")


class TractBackend(OnnxBackend):
    name = "tract"

    def __init__(self) -> None:
        super().__init__()
        import tract

        self._tract = tract
        self._onnx = tract.onnx()
        self._model_path = os.path.join(tempfile.gettempdir(), f"{_PREFIX}{os.getpid()}.onnx")
        _remove_left_behind()

    def version(self) -> str:
        return str(self._tract.version())

    def load(self, model: onnx.ModelProto) -> Any:
        path = self._model_path
        try:
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            return self._onnx.load(path).into_model().into_runnable()
        finally:
            os.unlink(path)

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        return [t.to_numpy() for t in handle.run(list(feeds.values()))]

    def needs_static(self, exc: BaseException) -> bool:
        return True  # tract's refusals of symbolic dims take many forms; the static retry says the real reason

    def classify(self, exc: BaseException, stage: str) -> str:
        text = str(exc).lower().split("stack backtrace:")[0]
        if any(s in text for s in _UNSUPPORTED):
            return "unsupported"
        # the binding's numpy conversion has no string (object) tensors: a type it does not take
        if isinstance(exc, TypeError) and "dtype" in text:
            return "unsupported"
        return "error"


def _remove_left_behind() -> None:
    """Model files of workers that died while tract loaded them (their process is gone)."""
    directory = tempfile.gettempdir()
    for name in os.listdir(directory):
        pid = name[len(_PREFIX):-len(".onnx")] if name.startswith(_PREFIX) and name.endswith(".onnx") else ""
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass  # another worker removed it first


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
