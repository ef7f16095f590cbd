"""ONNX InstanceNormalization: per instance and channel, scale * (x - mean) / sqrt(var + eps) + B."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import narrow, standardize


def run(spec, inputs, attributes, policies):
    x, scale, bias = (np.asarray(v) for v in inputs)
    channel = (-1,) + (1,) * (x.ndim - 2)  # scale and B apply along axis 1
    normalized, _, _ = standardize(x, tuple(range(2, x.ndim)), attributes["epsilon"], np.float64)
    with np.errstate(all="ignore"):
        y = normalized * scale.astype(np.float64).reshape(channel) + bias.astype(np.float64).reshape(channel)
    return (narrow(y, x.dtype),)
