"""ONNX SoftmaxCrossEntropyLoss: NegativeLogLikelihoodLoss of LogSoftmax(scores) over axis 1."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels.indexing import nll_loss
from opconform.oracle.kernels.linalg import log_softmax, narrow


def run(spec, inputs, attributes, policies):
    scores = np.asarray(inputs[0])
    weights = inputs[2] if len(inputs) > 2 else None
    log_prob = log_softmax(scores, 1)
    loss = nll_loss(log_prob, inputs[1], weights, attributes.get("ignore_index"), attributes["reduction"])
    return narrow(loss, scores.dtype), narrow(log_prob, scores.dtype)
