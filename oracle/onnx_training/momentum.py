"""ai.onnx.preview.training Momentum-1: one step of gradient descent with standard or Nesterov
momentum for each optimized tensor (beta only after the first update, T > 0), as the text's
pseudo code, in float64 and rounded once to T3."""
from __future__ import annotations

from opconform.oracle.kernels import ml, optimizers


@ml.quiet
def run(spec, inputs, attributes, policies, output_count=None):  # the inputs decide the count
    r, t = optimizers.scalar(inputs[0]), optimizers.scalar(inputs[1])
    alpha, norm = optimizers.attr(attributes, "alpha"), optimizers.attr(attributes, "norm_coefficient")
    beta = optimizers.attr(attributes, "beta") if t > 0 else 1.0
    new_x, new_v = [], []
    for x, g, v in optimizers.groups(inputs[2:], 3):
        g_reg = norm * x + g
        v_new = alpha * v + beta * g_reg
        step = g_reg + alpha * v_new if attributes["mode"] == "nesterov" else v_new
        new_x.append(x - r * step)
        new_v.append(v_new)
    return optimizers.rounded(new_x + new_v, inputs[2:])
