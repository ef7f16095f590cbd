"""OpenVINO Round-5: mode half_to_even is ONNX's Round (through the spec's mapping); mode
half_away_from_zero, which ONNX lacks, rounds a half away from zero (2.5 -> 3, -4.5 -> -5).
An integer is its own rounding."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import is_float, wide
from opconform.oracle.openvino import mapped


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    if not is_float(x):
        return (x.copy(),)
    if attributes.get("mode", "half_to_even") == "half_to_even":
        return mapped.run(spec, inputs, attributes, policies)
    w = wide(x)
    # x - trunc(x) is exact, so a half is recognised without the rounding of x + 0.5; a NaN
    # (a signaling one included) stays NaN
    with np.errstate(invalid="ignore"):
        whole = np.trunc(w)
        y = whole + np.where(np.abs(w - whole) >= 0.5, np.sign(w), 0.0)
    return (y.astype(x.dtype),)
