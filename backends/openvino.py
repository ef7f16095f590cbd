"""OpenVINO on CPU through its ONNX frontend (extra: openvino): ONNX models read from bytes."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx

from opconform.backends import openvino_common
from opconform.backends.onnx_base import OnnxBackend


class OpenVinoOnnxBackend(openvino_common.FewerCompiles, OnnxBackend):
    name = "openvino"

    def __init__(self) -> None:
        super().__init__()
        self._rt = openvino_common.OpenVinoRuntime()

    def version(self) -> str:
        return self._rt.version()

    def load(self, model: onnx.ModelProto) -> Any:
        data = model.SerializeToString()
        return self._rt.compile_keyed(data, lambda: self._rt.core.read_model(model=data, weights=b""))

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        return self._rt.infer(handle, list(feeds.values()), unread=self.leave_outputs_unread)

    def classify(self, exc: BaseException, stage: str) -> str:
        return openvino_common.classify(exc, stage)

    def needs_static(self, exc: BaseException) -> bool:
        return openvino_common.needs_static(exc)
