"""ONNX Trilu: keep the upper (or lower) triangle of the last two axes from diagonal k, zero the rest."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    k = 0 if len(inputs) < 2 or inputs[1] is None else int(np.asarray(inputs[1]).reshape(-1)[0])
    n, m = x.shape[-2:]
    k = min(max(k, -n - 1), m + 1)  # beyond the matrix every k acts alike; keeps np.tri in range
    lower = np.tri(n, m, k - 1 if attributes["upper"] else k, dtype=bool)  # j - i < k (upper) / <= k (lower)
    keep = ~lower if attributes["upper"] else lower
    zero = np.array("" if x.dtype.kind in "OUS" else 0).astype(x.dtype)
    return (np.where(keep, x, zero),)
