"""OpenVINO GRN-1: x / sqrt(sum over channels of x**2 + bias), by the policy intermediate_precision
(wide: float64, rounded once; input_type: every step in data's type, where a float32 square past
3.4e38 is inf)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.precision import to_type, total, working


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    w = working(data, policies)
    with np.errstate(all="ignore"):  # inf / inf, 0 / 0: IEEE's NaN, as the formula computes it
        bias = np.asarray(float(attributes["bias"])).astype(w.dtype)
        y = w / np.sqrt(total(w * w, 1, keepdims=True) + bias)
    return (to_type(y, data.dtype),)
