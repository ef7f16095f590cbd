"""ONNX TopK: the k largest (or smallest) elements along an axis and their indices."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, stable_order


def run(spec, inputs, attributes, policies):
    x, k = np.asarray(inputs[0]), int(np.asarray(inputs[1]).reshape(-1)[0])
    axis = axis_of(attributes["axis"], x.ndim)
    order = stable_order(x, axis, descending=bool(attributes["largest"]),
                         nan_greatest=policies["nan_order"] == "nan_greatest")
    # sorted = 0 leaves the order open; the spec makes that undefined unless k <= 1, where it is moot
    chosen = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, chosen, axis=axis), chosen.astype(np.int64)
