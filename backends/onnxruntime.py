"""onnxruntime on its CPU execution provider, or on the one named in brackets:
onnxruntime[CUDAExecutionProvider] (extra: onnxruntime; onnxruntime-gpu for CUDA).

On a provider other than the CPU's, nothing falls back to the CPU: onnxruntime would otherwise run
the nodes that provider does not implement on its CPU provider, and the results would certify
the CPU under the provider's name. A node the provider does not take is therefore unsupported."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np
import onnx

from opconform import dtypes
from opconform.backends import opsets
from opconform.backends.base import BackendMissing, phase
from opconform.backends.onnx_base import OnnxBackend
from opconform.backends.probe import highest_loadable_opset

# how onnxruntime says "this build does not implement it" (status code, or the type registry and the
# Python binding refusing an element type such as complex or ml_dtypes' bfloat16)
_UNSUPPORTED = ("NOT_IMPLEMENTED", "Could not find an implementation", "ValidateOpsetForDomain",
                "Unsupported model IR version", "is under development", "is not currently registered or supported",
                "can't be converted to MLDataType", "No corresponding Numpy type for Tensor Type",
                # a node the chosen provider has no kernel for, with CPU fallback turned off
                "fallback to CPU EP has been explicitly disabled",
                # the same, as onnxruntime-gpu 1.31 says it for a node no provider took (CUDA has no Acos):
                # "Provider type for Acos node with name '' is not set."
                "node with name '' is not set",
                # an operator of a domain this build has no kernels for (ai.onnx.preview.training:
                # "ai.onnx.preview.training:Adam(-1) is not a registered function/op")
                "is not a registered function/op",
                # the CPU recurrent kernels: "GRU operator does not support double yet", "Batchwise
                # recurrent operations (layout == 1) are not supported. If you need support create a github issue"
                "operator does not support double yet", "are not supported. If you need support",
                # the Python binding takes maps of float values only (map(string, float), map(int64, float)):
                # a dict of int64, double or string values cannot be fed
                "Unexpected input data type. Actual: ((map(", "cannot be linked to C type")

CPU = "CPUExecutionProvider"
# sessions kept per worker on any other provider: each CUDA session holds its own cuBLAS and cuDNN
# handles and memory arena, and with the default 256 per worker, 14 workers on one H200 made every
# later session fail to initialise cuBLAS (9,010 cases of a ci run judged "error" for it)
DEVICE_SESSIONS_KEPT = 8


class OnnxRuntimeBackend(OnnxBackend):
    name = "onnxruntime"
    takes_containers = True  # sequences as lists, maps as dicts, optionals as the value or None
    option = "execution provider"

    def __init__(self, provider: str | None = None) -> None:
        super().__init__()
        import onnxruntime

        self._ort = onnxruntime
        self.provider = provider or CPU
        if provider is not None:  # the provider is part of the backend's identity (results, probe cache)
            self.name = f"onnxruntime[{provider}]"
        self._options = onnxruntime.SessionOptions()
        if self.provider != CPU:
            self._options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
            self.cache_size = DEVICE_SESSIONS_KEPT
        self._options.log_severity_level = 4  # errors come back as exceptions; the log only repeats them
        # one thread per worker: the runner already runs --jobs workers side by side
        self._options.intra_op_num_threads = 1
        self._options.inter_op_num_threads = 1
        if provider is not None:
            _check_provider(onnxruntime, self.provider)

    def version(self) -> str:
        return self._ort.__version__

    def opset_range(self) -> tuple[int, int]:
        return 1, _highest_opset(self._ort.__version__)

    def load(self, model: onnx.ModelProto) -> Any:
        return self._ort.InferenceSession(model.SerializeToString(), self._options, providers=[self.provider])

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        got = handle.run(output_names, feeds)
        declared = {o.name: o.type for o in handle.get_outputs()}
        with phase("harness"):
            return [_as_declared(x, declared.get(n)) for x, n in zip(got, output_names)]

    def classify(self, exc: BaseException, stage: str) -> str:
        text = str(exc)
        return "unsupported" if any(s in text for s in _UNSUPPORTED) else "error"


def _check_provider(ort: Any, provider: str) -> None:
    """BackendMissing (one line) unless this onnxruntime has the provider and it starts: a build
    that lists CUDA without a usable GPU or CUDA libraries runs a session on the CPU instead."""
    available = ort.get_available_providers()
    if provider not in available:
        raise BackendMissing(f"onnxruntime has no execution provider {provider!r}; available: {', '.join(available)}"
                             + ("; CUDAExecutionProvider comes with the onnxruntime-gpu package in place of onnxruntime"
                                if provider == "CUDAExecutionProvider" else ""))
    probe = onnx.helper.make_model(
        onnx.helper.make_graph([onnx.helper.make_node("Identity", ["x"], ["y"])], "probe",
                               [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
                               [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])]),
        opset_imports=[onnx.helper.make_opsetid("", 13)], ir_version=7)
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        used = ort.InferenceSession(probe.SerializeToString(), options, providers=[provider]).get_providers()
    except Exception as e:  # noqa: BLE001 - whatever the provider raises, it did not start
        raise BackendMissing(f"onnxruntime's execution provider {provider!r} did not start: "
                             f"{str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}") from None
    if provider not in used:
        raise BackendMissing(f"onnxruntime's execution provider {provider!r} did not start here (no device or "
                             f"libraries?): a session ran on {', '.join(used)}; available: {', '.join(available)}")


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
