"""ONNX GlobalMaxPool: the maximum over every spatial dimension (axes 2...), kept as size 1."""
from __future__ import annotations

import warnings

import numpy as np

from opconform.oracle.kernels.linalg import widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    reduce = np.max if policies["nan"] == "propagate" else np.nanmax  # nanmax: NaN only where all are NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmax warns on an all-NaN channel
        return (reduce(widen(x), axis=tuple(range(2, x.ndim)), keepdims=True).astype(x.dtype),)
