"""ONNX GlobalLpPool: (sum |x|^p)^(1/p) over every spatial dimension (axes 2...), kept as size 1."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.linalg import widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    p = float(attributes["p"])
    with np.errstate(all="ignore"):
        total = np.sum(np.abs(widen(x)) ** p, axis=tuple(range(2, x.ndim)), keepdims=True)
        return ((total ** (1.0 / p)).astype(x.dtype),)
