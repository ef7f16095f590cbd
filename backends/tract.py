"""tract (Sonos' Rust inference engine) through its Python binding (extra: tract).

tract loads ONNX from a path only, so each model passes through a temporary file. It often
cannot type a graph with symbolic dimensions; then the signature gets one model per input shape.
Some bad inputs make tract abort the whole process: the runner's worker isolation covers that."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Sequence

import numpy as np
import onnx

from opconform.backends.onnx_base import OnnxBackend

_UNSUPPORTED = ("not supported", "unsupported", "not implemented", "unimplemented", "unknown datumtype")


class TractBackend(OnnxBackend):
    name = "tract"

    def __init__(self) -> None:
        super().__init__()
        import tract

        self._tract = tract
        self._onnx = tract.onnx()

    def version(self) -> str:
        return str(self._tract.version())

    def load(self, model: onnx.ModelProto) -> Any:
        fd, path = tempfile.mkstemp(suffix=".onnx", prefix="opconform-tract-")
        try:
            with os.fdopen(fd, "wb") as f:
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
