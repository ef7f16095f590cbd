"""What both OpenVINO backends share: one Core, CPU compilation, running, reading outputs back,
and which OpenVINO failures mean "not implemented"."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from opconform import dtypes
from opconform.backends.base import phase

# substrings (lower-case) of OpenVINO messages that say it does not implement something
_UNSUPPORTED = ("not supported", "unsupported", "not implemented", "doesn't support", "does not support",
                "wasn't fully converted")
# ... and those that say its Python binding has no mapping for an element type, whenever they come
_BINDING_TYPE = ("unsupported data type", "dtype_map.end()")
# element types whose NumPy (ml_dtypes) arrays the binding misreads: passed as raw bits instead
_RAW_BITS = ("bfloat16", "float8e4m3fn", "float8e5m2")


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
        with phase("harness"):
            tensors = [self._tensor(a) for a in arrays]
        result = compiled(tensors)
        # reading the outputs and their declared types is OpenVINO's code; reinterpreting them is ours
        got = [(result[port], port.get_element_type()) for port in compiled.outputs]
        with phase("harness"):
            return [self._numpy(declared, value) for value, declared in got]

    def _tensor(self, a: np.ndarray) -> Any:
        """What the binding reads right: strings as NumPy str arrays, and bfloat16/float8 as
        tensors of that OpenVINO type filled with the array's bits (it reads them as float16/uint8)."""
        if a.dtype == object:
            return np.asarray(a, dtype=str)
        name = dtypes.name_of(a.dtype)
        if name not in _RAW_BITS:
            return a
        tensor = self.ov.Tensor(getattr(self.ov.Type, dtypes.get(name).openvino), self.ov.Shape(list(a.shape)))
        # flat first: NumPy changes the element size of a 0-d array only by way of a 1-d view
        tensor.data.reshape(-1).view(np.uint8)[:] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        return tensor

    def _numpy(self, element_type: Any, value: Any) -> np.ndarray:
        a = np.asarray(value)
        # the binding hands bfloat16 back as float16 and float8 as uint8 (raw bits): reinterpret them
        declared = next((t for t in _RAW_BITS if element_type == getattr(self.ov.Type, dtypes.get(t).openvino)), None)
        if declared and a.dtype != dtypes.numpy_dtype(declared) and a.dtype.itemsize == dtypes.numpy_dtype(declared).itemsize:
            a = a.view(dtypes.numpy_dtype(declared))
        return a


def classify(exc: BaseException, stage: str) -> str:
    text = str(exc).lower()
    if any(s in text for s in _BINDING_TYPE) or (stage == "build" and any(s in text for s in _UNSUPPORTED)):
        return "unsupported"
    return "error"


def needs_static(exc: BaseException) -> bool:
    """The CPU plugin refuses some operators with dynamic rank or shapes; static shapes may work.
    Some nodes print a dynamic dimension as size_t's -1 instead (ROIAlign: "has invalid shape on 1st
    input: [18446744073709551615,18446744073709551615]")."""
    text = str(exc).lower()
    return "dynamic" in text or "18446744073709551615" in text
