"""ai.onnx.ml Normalizer-1: each row (the last axis) divided by its max, sum or L2 norm (policy
formulas: as the text writes them, or of the magnitudes); a zero divisor leaves the row as it is."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    t = np.float32 if policies["intermediate_precision"] == "input_type" else np.float64
    with np.errstate(over="ignore"):  # input_type: a double past float32's range is +-inf, as the runtime's float
        v = x.astype(t)
    norm = attributes["norm"]
    literal = policies["formulas"] == "as_written"
    with np.errstate(all="ignore"):
        if x.shape[-1] == 0:
            return (v.astype(np.float32),)
        if norm == "L2":
            div = np.sqrt((v * v).sum(axis=-1, keepdims=True, dtype=t))
            y = np.sqrt(v * v / (div * div)) if literal else v / div
        else:
            base = v if literal else np.abs(v)
            div = base.max(axis=-1, keepdims=True) if norm == "MAX" else base.sum(axis=-1, keepdims=True, dtype=t)
            y = v / div
        return (np.where(div == 0, v, y).astype(np.float32),)
