"""OpenVINO Unique-10: unique elements, indices, rev_indices, counts; the index and count
element types come from the index_element_type and count_element_type attributes."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.unique import unique_groups, unique_values
from opconform.oracle.kernels.unique_policies import policies_in_play as _in_play, unique_flags
from opconform.specs import normalize_axis

_TYPES = {"i64": np.int64, "i32": np.int32}


def _axis(inputs: list) -> int | None:
    axis_input = inputs[1] if len(inputs) > 1 else None
    if axis_input is None:
        return None
    return normalize_axis(np.asarray(axis_input).reshape(-1)[0], np.ndim(inputs[0]))


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = inputs[0]
    axis = _axis(inputs)
    g = unique_groups(x, axis, sorted=bool(attributes.get("sorted", True)), **unique_flags(policies))
    index_type = _TYPES[attributes.get("index_element_type", "i64")]
    count_type = _TYPES[attributes.get("count_element_type", "i64")]
    return (unique_values(x, axis, g), g.first.astype(index_type), g.inverse.astype(index_type),
            g.counts.astype(count_type))


def policies_in_play(spec: SpecVersion, inputs: list, attributes: dict) -> set[str]:
    return _in_play(np.asarray(inputs[0]), _axis(inputs), bool(attributes.get("sorted", True)))
