"""OpenVINO PReLU-1: x where x >= 0, slope * x elsewhere. A 1-D slope of data.shape[1] elements
applies per channel (along axis 1); any other slope broadcasts onto data with numpy's rules. ONNX's
PRelu has no per-channel case, so its kernel is not reused."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x, slope = np.asarray(inputs[0]), np.asarray(inputs[1])
    if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
        slope = slope.reshape((1, -1) + (1,) * (x.ndim - 2))  # per channel
    with np.errstate(all="ignore"):
        w = wide(x)
        y = np.where(w >= 0, w, wide(slope) * w)  # one rounding to T: the product is exact in float64
        return (np.broadcast_to(y, x.shape).astype(x.dtype),)  # past T's range: +-inf, as IEEE rounds
