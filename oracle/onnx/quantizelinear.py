"""ONNX QuantizeLinear: y = saturate((x / y_scale) + y_zero_point), per tensor, per axis or blocked
(oracle/kernels/quantize.py).

The output type is output_dtype's, else the zero point's, else uint8. The division's type: from
23 on the precision attribute's, else y_scale's when it is a float type (the text decides); before
23, and for an int32 or float8e8m0 y_scale, policy intermediate_precision: `wide` -- exact, then
rounded; `input_type` -- in the type of the operands (y_scale's: float32 before 19, T1 from 19 on,
x's for an int32 or float8e8m0 scale; float32 for int32)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import precision, quantize
from opconform.specs import normalize_axis

_NAMED_PRECISIONS = ("float32", "float16", "bfloat16")


def output_type(zero_point, attributes) -> str:
    code = int(attributes.get("output_dtype", 0) or 0)
    if code:
        return dtypes.BY_ONNX[code].name
    return "uint8" if zero_point is None else dtypes.name_of(np.asarray(zero_point).dtype)


def division_type(spec, x: np.ndarray, scale: np.ndarray, attributes, policies) -> str:
    scale_type = dtypes.name_of(np.asarray(scale).dtype)
    if spec.since >= 23:
        code = int(attributes.get("precision", 0) or 0)
        if code:
            return dtypes.BY_ONNX[code].name
        if scale_type in _NAMED_PRECISIONS:
            return scale_type
    if not precision.narrow_policy(policies):
        return "float64"
    own = scale_type if spec.since < 23 else dtypes.name_of(x.dtype)
    return own if own in _NAMED_PRECISIONS else "float32"


def run(spec, inputs, attributes, policies):
    x, scale, zero_point = (list(inputs) + [None] * 3)[:3]
    x = np.asarray(x)
    axis = normalize_axis(attributes.get("axis", 1), x.ndim) if x.ndim else 0
    block_size = int(attributes.get("block_size", 0) or 0)
    to = output_type(zero_point, attributes)
    q = quantize.divide(x, quantize.expand(scale, x.shape, axis, block_size),
                        division_type(spec, x, scale, attributes, policies))
    zp = None if zero_point is None else quantize.expand(zero_point, x.shape, axis, block_size)
    y = quantize.saturate(spec.id, np.broadcast_to(q, x.shape), zp, to, bool(attributes.get("saturate", 1)))
    return (np.asarray(y).reshape(x.shape),)
