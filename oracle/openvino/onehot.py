"""OpenVINO OneHot-16: on_value where the index along the new axis equals the element of indices,
off_value elsewhere; an index past depth, and a negative one under ignore-negative (the default),
selects nothing; under normalize an index in [-depth, -1] counts from the end (ONNX's reading)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.specs import normalize_axis


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    indices = np.asarray(inputs[0]).astype(np.int64)
    depth = int(np.asarray(inputs[1]).reshape(-1)[0])
    on, off = np.asarray(inputs[2]), np.asarray(inputs[3])
    if attributes.get("negative_indices_mode", "ignore-negative") == "normalize":
        indices = np.where((indices < 0) & (indices >= -depth), indices + depth, indices)
    axis = normalize_axis(int(attributes["axis"]), indices.ndim + 1)
    hot = np.expand_dims(indices, axis) == np.arange(depth).reshape((-1,) + (1,) * (indices.ndim - axis))
    return (np.where(hot, on, off).astype(on.dtype),)
