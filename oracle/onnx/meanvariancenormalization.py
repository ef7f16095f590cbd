"""ONNX MeanVarianceNormalization-13: (X - EX) / sqrt(E(X - EX)^2) over `axes` (+1e-9 by policy)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import mean, widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    w = widen(x)
    axes = tuple(int(a) % x.ndim for a in attributes["axes"])
    with np.errstate(all="ignore"):
        centred = w - mean(w, axes)  # an empty slice's mean is NaN, without np.mean's warning
        std = np.sqrt(mean(centred * centred, axes))
        if policies["denominator"] == "std_plus_epsilon":
            std = std + 1e-9
        return ((centred / std).astype(x.dtype),)
