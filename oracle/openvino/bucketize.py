"""OpenVINO Bucketize-3: for each element the index of its bucket among sorted boundaries; with
the right bound included an element equal to a boundary falls in the bucket that boundary closes
(searchsorted from the left), else in the one it opens (from the right). No boundaries: 0."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide

_TYPES = {"i64": np.int64, "i32": np.int32}


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, buckets = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
    side = "left" if attributes.get("with_right_bound", True) else "right"
    index = np.searchsorted(wide(buckets), wide(data), side=side)
    return (np.asarray(index).astype(_TYPES[attributes.get("output_type", "i64")]),)
