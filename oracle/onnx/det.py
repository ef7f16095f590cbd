"""ONNX Det: determinants of the trailing square matrices, by LU in float64, rounded once."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    with np.errstate(all="ignore"):
        return (np.asarray(np.linalg.det(x.astype(np.float64))).astype(x.dtype),)
