"""ai.onnx.ml ArrayFeatureExtractor-1: X[..., indices.ravel()]; a 1-D X gives a row or a vector (policy)."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x, idx = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
    z = x[..., idx]
    if x.ndim == 1 and policies["one_dimensional_x"] == "row":
        z = z.reshape(1, -1)
    return (z,)
