"""ONNX Compress: slices (or flattened elements) where condition is true, like numpy.compress."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of


def run(spec, inputs, attributes, policies):
    x, condition = np.asarray(inputs[0]), np.asarray(inputs[1], dtype=bool)
    if attributes.get("axis") is None:
        return (np.compress(condition, x.reshape(-1)),)
    return (np.compress(condition, x, axis=axis_of(attributes["axis"], x.ndim)),)
