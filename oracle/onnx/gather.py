"""ONNX Gather: entries of `data` along one axis at `indices` (negative counted from the back)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, positive


def run(spec, inputs, attributes, policies):
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    axis = axis_of(attributes["axis"], data.ndim)
    return (np.take(data, positive(indices, data.shape[axis]), axis=axis),)
