"""OpenVINO Ceiling-1: ONNX's kernel (through the spec's mapping) for floats; an integer is its own
ceiling (OpenVINO admits integers, ONNX's operator does not, and float64 would round those past 2**53)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    return (x.copy(),) if x.dtype.kind in "iu" else mapped.run(spec, inputs, attributes, policies)
