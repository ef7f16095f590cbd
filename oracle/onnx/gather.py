"""ONNX Gather: entries of `data` along one axis at `indices` (negative counted from the back)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, positive


def run(spec, inputs, attributes, policies):
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    axis = axis_of(attributes["axis"], data.ndim)
    # a 0-d index into 1-D data gives NumPy a scalar (a str for strings): kept a 0-d array of data's type
    return (np.asarray(np.take(data, positive(indices, data.shape[axis]), axis=axis), dtype=data.dtype),)
