"""PyTorch: ONNX converted to a torch.fx module by onnx2torch, run eagerly on the CPU, or on CUDA
as torch[cuda] (extra: torch).

One conversion serves a signature: the module runs eagerly, so every input shape takes it. A
conversion onnx2torch does not have (an operator at that version, an attribute value, a mode)
raises NotImplementedError: unsupported. So does an operation torch has no kernel for at an
element type ("not implemented for 'Half'"), and an element type torch's tensors lack. Anything
else raised while running is an error; a crash of torch kills the worker, which the runner
isolates and reports as a crash. On CUDA, an error that leaves the device context unusable (a
device-side assert, as an out-of-range index trips) ends the worker the same way: every later call
in the process would fail with it, and 8,137 later cases of one ci run were judged "error" for one
case's assert before this."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Sequence

import ml_dtypes
import numpy as np
import onnx

from opconform.backends.base import EXIT_DEVICE_LOST, BackendMissing, phase
from opconform.backends.onnx_base import OnnxBackend

# how torch says it has no kernel for an element type, or no tensor of a NumPy type at all
_UNSUPPORTED = ("not implemented for", "can't convert np.ndarray of type", "unsupported scalartype",
                "no corresponding torch dtype", "not supported")

DEVICES = ("cpu", "cuda")

# how torch says the CUDA context is gone ("CUDA error: device-side assert triggered", "an illegal
# memory access was encountered"): a sticky error, every later CUDA call in the process repeats it
_DEVICE_LOST = ("device-side assert", "illegal memory access", "unspecified launch failure")

# element types NumPy holds as ml_dtypes: torch takes them as the same bits under its own dtype of
# the same name
_ML_DTYPES = {n: np.dtype(getattr(ml_dtypes, n))
              for n in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")}


@dataclass
class Converted:
    module: Any  # the torch.nn.Module onnx2torch made, on the device, in eval mode


class TorchBackend(OnnxBackend):
    name = "torch"
    option = "device"

    def __init__(self, device: str | None = None) -> None:
        super().__init__()
        import onnx2torch
        import torch

        self._torch, self._convert = torch, onnx2torch.convert
        if device is not None and device not in DEVICES:
            raise BackendMissing(f"torch runs on {' or '.join(DEVICES)}, not {device!r} (torch[cuda] for the GPU)")
        if device == "cuda":
            # kernels launched synchronously: an assert surfaces in the case that tripped it, not in a later one
            os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "1")
        if device == "cuda" and not torch.cuda.is_available():
            raise BackendMissing("torch[cuda]: torch sees no CUDA device here (torch.cuda.is_available() is false"
                                 f"{'; this torch is a CPU build' if torch.version.cuda is None else ''})")
        self.device = device or "cpu"
        if device is not None:
            self.name = f"torch[{device}]"
        # one thread per worker: the runner already runs --jobs workers side by side
        torch.set_num_threads(1)

    def version(self) -> str:
        from importlib.metadata import version

        return f"torch {self._torch.__version__}, onnx2torch {version('onnx2torch')}"

    def load(self, model: onnx.ModelProto) -> Any:
        module = self._convert(model)
        try:
            return Converted(module.to(self.device).eval())
        except Exception as e:
            _end_if_device_lost(e)
            raise

    def infer(self, handle: Any, feeds: dict[str, np.ndarray], output_names: list[str]) -> Sequence[Any]:
        with phase("harness"):
            arrays = list(feeds.values())
        try:
            # torch's own NumPy bridge: where it has no tensor of a type, torch does not take the type
            tensors = [self._tensor(a) for a in arrays]
            with self._torch.no_grad():
                got = handle.module(*tensors)
            host = [self._numpy(t) for t in _flat(got)]
        except Exception as e:
            _end_if_device_lost(e)
            raise
        with phase("harness"):
            return [np.asarray(x) for x in host]

    def _tensor(self, a: np.ndarray) -> Any:
        a = np.ascontiguousarray(a)
        if a.dtype in _ML_DTYPES.values():
            bits = self._torch.from_numpy(a.view(np.uint8 if a.dtype.itemsize == 1 else np.int16))
            return bits.view(getattr(self._torch, a.dtype.name)).to(self.device)
        return self._torch.from_numpy(a).to(self.device)

    def _numpy(self, t: Any) -> np.ndarray:
        t = t.detach().cpu()
        for name, dtype in _ML_DTYPES.items():
            if t.dtype == getattr(self._torch, name, None):
                bits = t.view(self._torch.uint8 if t.element_size() == 1 else self._torch.int16).numpy()
                return bits.view(dtype)
        return t.numpy()

    def classify(self, exc: BaseException, stage: str) -> str:
        if isinstance(exc, NotImplementedError):  # onnx2torch: no converter for the operator, version or attribute
            return "unsupported"
        text = str(exc).lower()
        return "unsupported" if any(s in text for s in _UNSUPPORTED) else "error"


def loses_the_device(exc: BaseException) -> bool:
    """Whether torch raised a sticky CUDA error: the context is unusable from here on."""
    text = str(exc)
    return "CUDA error" in text and any(s in text for s in _DEVICE_LOST)


def _end_if_device_lost(exc: BaseException) -> None:
    if loses_the_device(exc):
        print(f"torch[cuda]: {str(exc).splitlines()[0]}: the worker ends, the case is a crash", file=sys.stderr)
        sys.stderr.flush()
        os._exit(EXIT_DEVICE_LOST)


def _flat(value: Any) -> list[Any]:
    """A module with one output returns a tensor; with several, a tuple or list of them."""
    if isinstance(value, (tuple, list)):
        return [x for item in value for x in _flat(item)]
    return [value]
