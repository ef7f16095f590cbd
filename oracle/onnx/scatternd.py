"""ONNX ScatterND: a copy of data with updates written (or reduced) at index tuples."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import positive, scatter


def run(spec, inputs, attributes, policies):
    data, indices, updates = (np.asarray(x) for x in inputs)
    k = indices.shape[-1]
    idx = positive(indices, np.asarray(data.shape[:k], dtype=np.int64))
    target = tuple(np.moveaxis(idx, -1, 0))  # one index array per leading data axis
    return (scatter(data, target, updates, attributes.get("reduction", "none")),)
