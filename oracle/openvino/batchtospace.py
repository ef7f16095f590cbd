"""OpenVINO BatchToSpace-2: the document's four steps (reshape the batch into the blocks, interleave
each block with its spatial dimension, merge, crop)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    block, begin, end = ([int(v) for v in np.asarray(t).reshape(-1)] for t in inputs[1:4])
    n, spatial, blocks = data.ndim, list(data.shape[1:]), block[1:]
    batch = data.shape[0] // int(np.prod(blocks, dtype=np.int64))
    x = data.reshape(blocks + [batch] + spatial)
    # [batch, D_1, B_1, ..., D_{N-1}, B_{N-1}]: x'' = transpose(x', [N-1, N, 0, N+1, 1, ...]) over N-1 blocks
    perm = [n - 1] + [a for i in range(n - 1) for a in (n + i, i)]
    y = x.transpose(perm).reshape([batch] + [d * b for d, b in zip(spatial, blocks)])
    crop = tuple(slice(begin[k], y.shape[k] - end[k]) for k in range(1, n))
    return (np.array(y[(slice(None),) + crop], copy=True),)
