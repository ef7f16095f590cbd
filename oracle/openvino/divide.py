"""OpenVINO Divide-1: ONNX's Div (through the spec's mapping), except integer division under
m_pythondiv = true (the default), which floors where ONNX's Div truncates toward zero."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    if a.dtype.kind not in "iu" or not attributes.get("m_pythondiv", True):
        return mapped.run(spec, inputs, attributes, policies)
    safe = np.where(b == 0, 1, b).astype(b.dtype)  # a zero divisor is undefined (a relation), never computed
    return (np.floor_divide(a, safe).astype(a.dtype),)
