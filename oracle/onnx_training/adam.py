"""ai.onnx.preview.training Adam-1: one Adam step for each optimized tensor, as the text's pseudo
code (bias correction for T > 0, post-update regularization), in float64 and rounded once to T3."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml, optimizers


@ml.quiet
def run(spec, inputs, attributes, policies, output_count=None):  # the inputs decide the count
    r, t = optimizers.scalar(inputs[0]), optimizers.scalar(inputs[1])
    alpha, beta = optimizers.attr(attributes, "alpha"), optimizers.attr(attributes, "beta")
    norm, post = optimizers.attr(attributes, "norm_coefficient"), optimizers.attr(attributes, "norm_coefficient_post")
    eps = optimizers.attr(attributes, "epsilon")
    r_adjusted = r * np.sqrt(1 - beta ** t) / (1 - alpha ** t) if t > 0 else r
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in optimizers.groups(inputs[2:], 4):
        g_reg = norm * x + g
        v_new = alpha * v + (1 - alpha) * g_reg
        h_new = beta * h + (1 - beta) * g_reg * g_reg
        new_x.append((1 - post) * (x - r_adjusted * v_new / (np.sqrt(h_new) + eps)))
        new_v.append(v_new)
        new_h.append(h_new)
    return optimizers.rounded(new_x + new_v + new_h, inputs[2:])
