"""ONNX CausalConvWithState-27: the input padded on the left with past_state (zeros without it),
then Conv's depthwise product (group = channels, valid padding, stride 1: oracle/kernels/conv.py,
sliding windows and one product per channel), the bias added, and SiLU of the result rounded to T
(the text's fused activation, 'silu' and 'swish' alike). present_state: the last k - 1 positions of
the padded sequence.

Policy intermediate_precision: Conv's (float64 rounded once, or every step rounded to T)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, precision
from opconform.oracle.onnx.conv import with_bias


def run(spec, inputs, attributes, policies):
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    b, past = (list(inputs) + [None, None])[2:4]
    batch, channels, _ = x.shape
    k = w.shape[2]
    pad = np.zeros((batch, channels, k - 1), x.dtype) if past is None else np.asarray(past)
    padded = np.concatenate([pad, x], axis=2)
    win = conv.window(padded.shape[2:], (k,), {})
    if channels:
        y = conv.convolve(padded, w, win, channels, spec.id, policies)
    else:  # no channel, no group to divide the product into: an empty result of the input's shape
        y = np.zeros(x.shape, np.float64)
    y = with_bias(y, b, x.dtype, policies)
    if attributes.get("activation", "none") in ("silu", "swish"):
        # SiLU of the convolution as T holds it, x * sigmoid(x) in float64, rounded once; exp(-x) past
        # float64 (x = -inf) gives sigmoid 0 and -inf * 0 = NaN, as the formula written out does
        z = precision.to_type(y, np.float64)
        with np.errstate(all="ignore"):
            y = precision.to_type(z / (1.0 + np.exp(-z)), x.dtype)
    return y, padded[:, :, padded.shape[2] - (k - 1):]
