"""ONNX Softmax-13: Exp(input) / ReduceSum(Exp(input), axis, keepdims=1)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import log_softmax


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    with np.errstate(all="ignore"):
        return (np.exp(log_softmax(x, axis_of(attributes["axis"], x.ndim))).astype(x.dtype),)
