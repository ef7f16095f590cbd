"""ONNX ScatterElements: the inverse of GatherElements, with an optional reduction."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, positive, scatter


def run(spec, inputs, attributes, policies):
    data, indices, updates = (np.asarray(x) for x in inputs)
    axis = axis_of(attributes["axis"], data.ndim)
    # the target of each entry: its own coordinates, with the one along axis taken from indices
    target = list(np.indices(indices.shape, sparse=True))
    target[axis] = positive(indices, data.shape[axis])
    return (scatter(data, tuple(target), updates, attributes.get("reduction", "none")),)
