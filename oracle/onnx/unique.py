"""ONNX Unique-11 and Unique-28: Y, indices, inverse_indices, counts (all int64)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.unique import unique_groups, unique_values
from opconform.oracle.kernels import unique_policies
from opconform.specs import normalize_axis


def _axis(x: np.ndarray, attributes: dict) -> int | None:
    axis = attributes.get("axis")
    return None if axis is None else normalize_axis(axis, x.ndim)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = inputs[0]
    axis = _axis(x, attributes)
    g = unique_groups(x, axis, sorted=bool(attributes.get("sorted", 1)), **unique_policies.unique_flags(policies))
    return unique_values(x, axis, g), g.first, g.inverse, g.counts


def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    x = np.asarray(inputs[0])
    return unique_policies.policies_in_play(x, _axis(x, attributes), bool(attributes.get("sorted", 1)))
