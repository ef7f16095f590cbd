"""onnxruntime on its CPU execution provider (extra: onnxruntime)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np
import onnx

from opconform import dtypes
from opconform.backends import opsets
from opconform.backends.base import phase
from opconform.backends.onnx_base import OnnxBackend
from opconform.backends.probe import highest_loadable_opset

# how onnxruntime says "this build does not implement it" (status code, or the type registry and the
# Python binding refusing an element type such as complex or ml_dtypes' bfloat16)
_UNSUPPORTED = ("NOT_IMPLEMENTED", "Could not find an implementation", "ValidateOpsetForDomain",
                "Unsupported model IR version", "is under development", "is not currently registered or supported",
                "can't be converted to MLDataType", "No corresponding Numpy type for Tensor Type",
                # the CPU recurrent kernels: "GRU operator does not support double yet", "Batchwise
                # recurrent operations (layout == 1) are not supported. If you need support create a github issue"
                "operator does not support double yet", "are not supported. If you need support")


class OnnxRuntimeBackend(OnnxBackend):
    name = "onnxruntime"

    def __init__(self) -> None:
        super().__init__()
        import onnxruntime

        self._ort = onnxruntime
        self._options = onnxruntime.SessionOptions()
        self._options.log_severity_level = 4  # errors come back as exceptions; the log only repeats them
        # one thread per worker: the runner already runs --jobs workers side by side
        self._options.intra_op_num_threads = 1
        self._options.inter_op_num_threads = 1

    def version(self) -> str:
        return self._ort.__version__

    def opset_range(self) -> tuple[int, int]:
        return 1, _highest_opset(self._ort.__version__)

    def load(self, model: onnx.ModelProto) -> Any:
        return self._ort.InferenceSession(model.SerializeToString(), self._options, providers=["CPUExecutionProvider"])

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        got = handle.run(output_names, feeds)
        declared = {o.name: o.type for o in handle.get_outputs()}
        with phase("harness"):
            return [_as_declared(x, declared.get(n)) for x, n in zip(got, output_names)]

    def classify(self, exc: BaseException, stage: str) -> str:
        text = str(exc)
        return "unsupported" if any(s in text for s in _UNSUPPORTED) else "error"


def _as_declared(x: Any, onnx_type: str | None) -> Any:
    """onnxruntime hands float8 tensors to NumPy as their raw bytes typed uint8: reinterpret the
    bits as the declared type (same width), so a wrong element type still shows as one."""
    t = dtypes.BY_ONNX_STR.get(onnx_type or "")
    if t is None or t.numpy is None or not isinstance(x, np.ndarray) or x.dtype == t.numpy:
        return x
    if x.dtype == np.uint8 and t.numpy.itemsize == 1 and t.kind == "float":
        return x.view(t.numpy)
    return x


@lru_cache(maxsize=None)
def _highest_opset(version: str) -> int:
    import onnxruntime

    def loads(model: onnx.ModelProto) -> None:
        onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])

    return highest_loadable_opset(loads, opsets.LATEST)
