"""OpenVINO DepthToSpace-1: the document's reshape, transpose, reshape for K spatial dimensions
(ONNX's DepthToSpace takes K = 2 only, so its kernel is not reused)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    b = int(attributes.get("block_size", 1))
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    depth = c // b ** k
    if attributes["mode"] == "blocks_first":
        x1 = x.reshape([n] + [b] * k + [depth] + spatial)
        perm = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
    else:
        x1 = x.reshape([n, depth] + [b] * k + spatial)
        perm = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]
    return (x1.transpose(perm).reshape([n, depth] + [d * b for d in spatial]),)
