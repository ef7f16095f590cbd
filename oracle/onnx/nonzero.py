"""ONNX NonZero: coordinates of the non-zero elements, row-major, as a (rank, count) tensor."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    if x.ndim == 0:  # the text: a scalar gives shape (0, N), unlike numpy's (1, N)
        return (np.zeros((0, int(bool(x.item()))), dtype=np.int64),)
    return (np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1),)
