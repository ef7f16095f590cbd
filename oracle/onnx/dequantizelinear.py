"""ONNX DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, per axis or blocked
(oracle/kernels/quantize.py lays the scale and zero point out).

The output type is output_dtype's (23 on) or else x_scale's (float32 before 19). Policy
intermediate_precision: `wide` -- x - x_zero_point and the product exact, rounded once to the
output type; `input_type` -- x - x_zero_point and the scale rounded to the output type first and
the product rounded to it (an int32 x past 65504 is inf as a float16 operand)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import precision, quantize
from opconform.specs import normalize_axis


def output_type(spec, scale: np.ndarray, attributes) -> str:
    code = int(attributes.get("output_dtype", 0) or 0)
    if code:
        return dtypes.BY_ONNX[code].name
    return dtypes.name_of(np.asarray(scale).dtype) if spec.since >= 19 else "float32"


def run(spec, inputs, attributes, policies):
    x, scale, zero_point = (list(inputs) + [None] * 3)[:3]
    x = np.asarray(x)
    axis = normalize_axis(attributes.get("axis", 1), x.ndim) if x.ndim else 0
    block_size = int(attributes.get("block_size", 0) or 0)
    out = output_type(spec, scale, attributes)
    d = quantize.wide(x)
    if zero_point is not None:
        d = d - quantize.wide(quantize.expand(zero_point, x.shape, axis, block_size))
    s = quantize.wide(quantize.expand(scale, x.shape, axis, block_size))
    if precision.narrow_policy(policies):
        d, s = quantize.in_type(d, out), quantize.in_type(s, out)
    with np.errstate(invalid="ignore", over="ignore"):
        return (precision.to_type(d * s, dtypes.numpy_dtype(out)),)
