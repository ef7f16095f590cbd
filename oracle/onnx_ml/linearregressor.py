"""ai.onnx.ml LinearRegressor-1: Y = X W^T + intercepts, W the coefficients as [targets, F]
(each target's contiguous), then post_transform (oracle/kernels/ml.py). An X of shape [F] is one
example. In float64, rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml
from opconform.oracle.kernels.elementwise import wide


def scores(x: np.ndarray, coefficients, intercepts, rows: int) -> np.ndarray:
    """X (as [N, F]) times the coefficients read as [rows, F], plus the intercepts, in float64."""
    x2 = wide(x).reshape(-1, x.shape[-1]) if x.ndim == 1 else wide(x)  # wide: a signaling NaN quiets silently
    w = np.asarray(coefficients, dtype=np.float32).astype(np.float64).reshape(rows, x2.shape[1])
    with np.errstate(all="ignore"):
        s = x2 @ w.T if x2.shape[1] else np.zeros((x2.shape[0], rows))
        if intercepts:
            s = s + np.asarray(intercepts, dtype=np.float32).astype(np.float64)
    return s


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    s = scores(x, attributes["coefficients"], attributes.get("intercepts"), int(attributes["targets"]))
    z = ml.post_transform(s, attributes["post_transform"], policies, spec.id)
    with np.errstate(over="ignore"):  # rounded once to float32: a score past its range is +-inf
        return (z.astype(np.float32),)
