"""ONNX GatherND-11/12/13 (GatherND-11 has no batch_dims: it is 0)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.gathernd import gather_nd


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices = inputs
    return (gather_nd(data, indices, int(attributes.get("batch_dims", 0))),)
