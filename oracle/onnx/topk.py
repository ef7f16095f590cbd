"""ONNX TopK: the k largest (or smallest) elements along an axis and their indices."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of, stable_order


def run(spec, inputs, attributes, policies):
    x, k = np.asarray(inputs[0]), int(np.asarray(inputs[1]).reshape(-1)[0])
    axis = axis_of(attributes["axis"], x.ndim)
    order = stable_order(x, axis, descending=bool(attributes["largest"]),
                         nan_greatest=policies["nan_order"] == "nan_greatest")
    chosen = np.take(order, np.arange(k), axis=axis)
    if not attributes["sorted"] and policies["unsorted_order"] == "input_order":
        chosen = np.sort(chosen, axis=axis)
    return np.take_along_axis(x, chosen, axis=axis), chosen.astype(np.int64)
