"""OpenVINO GroupNormalization-12: mean and (population) variance per batch entry per group of
channels, y = scale * (x - mean) / sqrt(variance + epsilon) + bias, every step in float64 and
rounded once (OpenVINO names no computation type; ONNX's stash_type would round stage one)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.kernels.fp_extremes import extremes_are_data


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    x, scale, bias = (wide(a) for a in inputs)
    n, c, groups = x.shape[0], x.shape[1], int(attributes["num_groups"])
    g = x.reshape(n, groups, (c // groups) * int(np.prod(x.shape[2:], dtype=np.int64)))
    with np.errstate(all="ignore"):  # inf - inf and overflow: the formula's IEEE result
        mean = g.mean(axis=2, keepdims=True)
        var = ((g - mean) ** 2).mean(axis=2, keepdims=True)
        normalized = ((g - mean) / np.sqrt(var + float(attributes["epsilon"]))).reshape(x.shape)
        per_channel = (1, c) + (1,) * (x.ndim - 2)
        y = normalized * scale.reshape(per_channel) + bias.reshape(per_channel)
    return (y.astype(data.dtype),)
