"""ONNX GatherElements: out[i][j][k] = data[indices[i][j][k]][j][k] for axis 0, and so on."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, positive


def run(spec, inputs, attributes, policies):
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    axis = axis_of(attributes["axis"], data.ndim)
    idx = positive(indices, data.shape[axis])
    # indices may be smaller than data on the other axes: read the leading block of data there
    block = tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(idx.shape))
    return (np.take_along_axis(data[block], idx, axis=axis),)
