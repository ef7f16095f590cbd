"""OpenVINO SpaceToDepth-1: the document's reshape, transpose, reshape for K spatial dimensions
(ONNX's SpaceToDepth-13 takes K = 2 and blocks first only, so its kernel is not reused)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    b = int(attributes.get("block_size", 1))
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    x1 = x.reshape([n, c] + [a for d in spatial for a in (d // b, b)])
    blocks, rest = [3 + 2 * i for i in range(k)], [2 + 2 * i for i in range(k)]
    perm = [0] + blocks + [1] + rest if attributes["mode"] == "blocks_first" else [0, 1] + blocks + rest
    return (x1.transpose(perm).reshape([n, c * b ** k] + [d // b for d in spatial]),)
