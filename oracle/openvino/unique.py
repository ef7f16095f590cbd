"""OpenVINO Unique-10: unique elements, indices, rev_indices, counts; the index and count
element types come from the index_element_type and count_element_type attributes."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.unique import unique_groups, unique_values
from opconform.oracle.kernels.unique_policies import unique_flags
from opconform.specs import normalize_axis

_TYPES = {"i64": np.int64, "i32": np.int32}


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = inputs[0]
    axis_input = inputs[1] if len(inputs) > 1 else None
    axis = None
    if axis_input is not None:
        axis = normalize_axis(np.asarray(axis_input).reshape(-1)[0], x.ndim)
    g = unique_groups(x, axis, sorted=bool(attributes.get("sorted", True)), **unique_flags(policies))
    index_type = _TYPES[attributes.get("index_element_type", "i64")]
    count_type = _TYPES[attributes.get("count_element_type", "i64")]
    return (unique_values(x, axis, g), g.first.astype(index_type), g.inverse.astype(index_type),
            g.counts.astype(count_type))
