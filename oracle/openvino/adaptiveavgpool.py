"""OpenVINO AdaptiveAvgPool-8: the mean of each adaptive window (oracle/openvino/adaptive_windows.py).
ONNX has no adaptive pooling (its GlobalAveragePool is the one-window case), so the oracle is its
own. Policy intermediate_precision: the sum and quotient in float64 (wide) or in T (input_type)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels import precision
from opconform.oracle.openvino.adaptive_windows import output_size, windows


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    out = output_size(x, inputs[1])
    w = precision.working(x, policies)
    y = np.zeros(x.shape[:2] + out, dtype=w.dtype)
    for pos, block, _ in windows(w, out):
        precision.refuse_order_dependent_sum(spec.id, block, -1, policies)
        y[(slice(None), slice(None)) + pos] = precision.mean(block, -1)
    return (precision.to_type(y, x.dtype),)
