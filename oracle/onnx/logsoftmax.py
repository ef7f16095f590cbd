"""ONNX LogSoftmax-13: log of Softmax along an axis."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import log_softmax


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    return (log_softmax(x, axis_of(attributes["axis"], x.ndim)).astype(x.dtype),)
