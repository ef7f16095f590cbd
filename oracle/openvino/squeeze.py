"""OpenVINO Squeeze-15: the named dimensions that are 1 removed, a named dimension that is not 1
"ignored and copied as is"; without axes (or with none) every dimension of 1. ONNX's Squeeze
refuses a named dimension that is not 1, so its kernel is not reused."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.specs import normalize_axis


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    axes = None if len(inputs) < 2 or inputs[1] is None else np.asarray(inputs[1]).reshape(-1)
    if axes is None or axes.size == 0:
        named = range(data.ndim)
    else:
        named = {normalize_axis(int(a), data.ndim) for a in axes}
    return (data.reshape(tuple(d for k, d in enumerate(data.shape) if not (k in named and d == 1))),)
