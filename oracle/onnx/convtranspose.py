"""ONNX ConvTranspose: every input element's products with the kernel added into the output at
i * strides + k * dilations, shifted by the begin padding (pads, auto_pad or output_shape's
total padding; output_padding lengthens the end), the bias added (oracle/kernels/conv.py).

Policy intermediate_precision: `wide` -- float64, rounded once; `input_type` -- every product
and addition rounded to T, the bias added in T. Policy negative_padding_split: an output_shape
past the full result makes total_padding negative, and total_padding[i]/2 is floor or C division."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv
from opconform.oracle.onnx.conv import with_bias


def run(spec, inputs, attributes, policies):
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    b = inputs[2] if len(inputs) > 2 else None
    geo = conv.transposed(x.shape[2:], attributes.get("kernel_shape") or w.shape[2:], attributes,
                          truncate=policies["negative_padding_split"] == "truncate")
    y = conv.convolve_transposed(x, w, geo, int(attributes.get("group") or 1), spec.id, policies)
    return (with_bias(y, b, x.dtype, policies),)
