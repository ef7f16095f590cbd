"""What both OpenVINO backends share: one Core, CPU compilation, running, reading outputs back,
and which OpenVINO failures mean "not implemented"."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

# substrings (lower-case) of OpenVINO messages that say it does not implement something
_UNSUPPORTED = ("not supported", "unsupported", "not implemented", "doesn't support", "does not support")


class OpenVinoRuntime:
    """An ov.Core with the settings the runner wants: CPU, one thread per worker."""

    def __init__(self) -> None:
        import openvino

        self.ov = openvino
        self.core = openvino.Core()
        # one thread per worker: the runner already runs --jobs workers side by side
        self.config = {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1}

    def version(self) -> str:
        return self.ov.get_version()

    def compile(self, model: Any) -> Any:
        return self.core.compile_model(model, "CPU", self.config)

    def infer(self, compiled: Any, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        result = compiled(list(arrays))
        return [self._numpy(port, result[port]) for port in compiled.outputs]

    def _numpy(self, port: Any, value: Any) -> np.ndarray:
        a = np.asarray(value)
        # OpenVINO hands bfloat16 back as raw 16-bit data typed float16: reinterpret the bits
        if port.get_element_type() == self.ov.Type.bf16 and a.dtype == np.float16:
            import ml_dtypes

            a = a.view(np.uint16).view(ml_dtypes.bfloat16)
        return a


def classify(exc: BaseException, stage: str) -> str:
    text = str(exc).lower()
    return "unsupported" if stage == "build" and any(s in text for s in _UNSUPPORTED) else "error"


def needs_static(exc: BaseException) -> bool:
    """The CPU plugin refuses some operators with dynamic rank or shapes; static shapes may work."""
    return "dynamic" in str(exc).lower()
