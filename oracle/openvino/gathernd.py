"""OpenVINO GatherND-5 and GatherND-8.

Both gather the same values; GatherND-5 flattens the batch dimensions of the output into one
(`(multiplication of indices.shape[:b]) + indices.shape[b:-1] + data.shape[b+m:]`), GatherND-8
keeps them (`indices.shape[:b] + indices.shape[b:-1] + data.shape[b+m:]`).
"""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.gathernd import gather_nd


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices = inputs
    b = int(attributes.get("batch_dims", 0))
    out = gather_nd(data, indices, b)
    if spec.since == 5 and b > 0:
        out = out.reshape((int(np.prod(indices.shape[:b], dtype=np.int64)),) + out.shape[b:])
    return (out,)
