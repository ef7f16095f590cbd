"""ONNX Unique-11 and Unique-28: Y, indices, inverse_indices, counts (all int64)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.unique import unique_groups, unique_values
from opconform.oracle.kernels.unique_policies import unique_flags
from opconform.specs import normalize_axis


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = inputs[0]
    axis = attributes.get("axis")
    if axis is not None:
        axis = normalize_axis(axis, x.ndim)
    g = unique_groups(x, axis, sorted=bool(attributes.get("sorted", 1)), **unique_flags(policies))
    return unique_values(x, axis, g), g.first, g.inverse, g.counts
