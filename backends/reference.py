"""The ONNX reference evaluator (onnx.reference): the default backend, no extra needed.

It is a backend to certify like any other, not an oracle: it is NumPy with Python loops in
places and it is not always right."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx

from opconform.backends.onnx_base import OnnxBackend


class ReferenceBackend(OnnxBackend):
    name = "reference"
    takes_containers = True  # sequences as lists, maps as dicts, optionals as the value or None

    def __init__(self) -> None:
        super().__init__()
        from onnx.reference import ReferenceEvaluator

        self._evaluator = ReferenceEvaluator

    def version(self) -> str:
        return onnx.__version__

    def load(self, model: onnx.ModelProto) -> Any:
        return self._evaluator(model)

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        with np.errstate(all="ignore"):
            return handle.run(output_names, feeds)

    def classify(self, exc: BaseException, stage: str) -> str:
        text = str(exc).lower()
        if isinstance(exc, NotImplementedError) or "not implemented" in text or "unable to find" in text:
            return "unsupported"
        return "error"
