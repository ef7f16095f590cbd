"""ONNX NegativeLogLikelihoodLoss: -input[n][target][d...] (weighted), reduced none/sum/mean."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import nll_loss
from opconform.oracle.kernels.linalg import narrow


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    weight = inputs[2] if len(inputs) > 2 else None
    loss = nll_loss(x, inputs[1], weight, attributes.get("ignore_index"), attributes["reduction"])
    return (narrow(loss, x.dtype),)
