"""OpenVINO MatMul-1: ONNX's MatMul (through the spec's mapping) of the inputs after the
transpositions transpose_a / transpose_b ask for (the two right-most dimensions swapped; ignored
for 1-D tensors). ONNX's MatMul has no such attributes."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped


def _transposed(x: np.ndarray, flag: bool) -> np.ndarray:
    return np.swapaxes(x, -1, -2) if flag and x.ndim >= 2 else x


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    a = _transposed(np.asarray(inputs[0]), bool(attributes.get("transpose_a", False)))
    b = _transposed(np.asarray(inputs[1]), bool(attributes.get("transpose_b", False)))
    return mapped.run(spec, [np.ascontiguousarray(a), np.ascontiguousarray(b)], attributes, policies)
