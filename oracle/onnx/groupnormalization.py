"""ONNX GroupNormalization-21: standardize per instance and group of channels (stash type), then
scale and shift per channel in T."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from opconform.oracle.kernels.linalg import standardize


def run(spec, inputs, attributes, policies):
    x, scale, bias = (np.asarray(v) for v in inputs)
    n, c = x.shape[:2]
    groups = int(attributes["num_groups"])
    stash = np.float32 if attributes["stash_type"] == 1 else ml_dtypes.bfloat16
    per_group = (c // groups) * int(np.prod(x.shape[2:], dtype=np.int64))
    grouped = x.reshape((n, groups, per_group))  # a group's channels and their spatial positions, in order
    normalized, _, _ = standardize(grouped, (2,), attributes["epsilon"], stash)
    channel = (-1,) + (1,) * (x.ndim - 2)
    with np.errstate(all="ignore"):
        y = normalized.reshape(x.shape).astype(x.dtype) * scale.reshape(channel) + bias.reshape(channel)
    return (y.astype(x.dtype),)
