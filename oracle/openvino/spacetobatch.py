"""OpenVINO SpaceToBatch-2: the document's steps (zero padding, split of each padded spatial
dimension into [D / B, B], the block positions moved in front of the batch, merge)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    block, begin, end = ([int(v) for v in np.asarray(t).reshape(-1)] for t in inputs[1:4])
    n = data.ndim
    x = np.pad(data, list(zip(begin, end)))  # zeros (False for bool)
    batch, blocks = x.shape[0], block[1:]
    grid = [d // b for d, b in zip(x.shape[1:], blocks)]
    x1 = x.reshape([batch] + [a for g, b in zip(grid, blocks) for a in (g, b)])
    # the block positions B_1 .. B_{N-1}, then the batch, then the grid positions
    perm = [2 + 2 * i for i in range(n - 1)] + [0] + [1 + 2 * i for i in range(n - 1)]
    return (x1.transpose(perm).reshape([batch * int(np.prod(blocks, dtype=np.int64))] + grid),)
