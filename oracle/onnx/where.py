"""ONNX Where: numpy.where with three parameters (multidirectional broadcasting)."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    condition, x, y = (np.asarray(v) for v in inputs)
    return (np.where(condition, x, y).astype(x.dtype, copy=False),)
