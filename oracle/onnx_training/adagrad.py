"""ai.onnx.preview.training Adagrad-1: one ADAGRAD step for each optimized tensor, as the text's
pseudo code, in float64 and rounded once to T3 (oracle/kernels/optimizers.py)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml, optimizers


@ml.quiet
def run(spec, inputs, attributes, policies, output_count=None):  # the inputs decide the count
    r = optimizers.scalar(inputs[0]) / (1 + optimizers.scalar(inputs[1]) * optimizers.attr(attributes, "decay_factor"))
    norm, eps = optimizers.attr(attributes, "norm_coefficient"), optimizers.attr(attributes, "epsilon")
    new_x, new_h = [], []
    for x, g, h in optimizers.groups(inputs[2:], 3):
        g_reg = norm * x + g
        h_new = h + g_reg * g_reg
        new_x.append(x - r * g_reg / (np.sqrt(h_new) + eps))
        new_h.append(h_new)
    return optimizers.rounded(new_x + new_h, inputs[2:])
