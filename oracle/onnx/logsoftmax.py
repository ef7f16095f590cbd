"""ONNX LogSoftmax-13: log of Softmax along an axis."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import axis_of
from opconform.oracle.kernels.linalg import log_softmax, narrow


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    return (narrow(log_softmax(x, axis_of(attributes["axis"], x.ndim)), x.dtype),)
