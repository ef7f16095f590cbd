"""ONNX DynamicQuantizeLinear-11: y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
round(saturate(0 - min / y_scale)), y = saturate(round(x / y_scale) + y_zero_point), uint8, ties to even.

Policy intermediate_precision: `wide` -- each formula exact in float64 from the float32 values it
reads, rounded once (y_scale to float32); `input_type` -- every operation in float32."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken
from opconform.oracle.kernels import precision

_QMIN, _QMAX = 0.0, 255.0


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0], dtype=np.float32)
    t = np.float32 if precision.narrow_policy(policies) else np.float64
    hi, lo = t(max(0.0, float(x.max()))), t(min(0.0, float(x.min())))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        scale = np.float32((hi - lo) / t(_QMAX - _QMIN))
        if not 0 < scale < np.inf:  # x's range under 255 * the least float32 (or past its largest)
            raise RelationBroken(spec.id, "scale_nonzero", "undefined",
                                 f"y_scale is {scale}: qmin - min(x) / y_scale is then 0 / 0 or a quotient of infinity")
        zero_point = np.rint(np.clip(t(_QMIN) - lo / t(scale), _QMIN, _QMAX))
        y = np.clip(np.rint(x.astype(t) / t(scale)) + zero_point, _QMIN, _QMAX)
    return y.astype(np.uint8), np.asarray(scale, dtype=np.float32), np.asarray(zero_point).astype(np.uint8)
