"""OpenVINO FakeConvert-13: data * scale - shift, converted to the 8-bit float destination_type
(rounded to nearest, ties to even) and back, then (data + shift) / scale. The text leaves open
the type of the affine steps (policy intermediate_precision: in T, as the pseudo-code's data is,
or in float64 rounded once) and what a value past the 8-bit type's range becomes (policy
saturation: the largest finite value of its sign, or the conversion's own NaN (f8e4m3 has no
infinity) or infinity). ONNX's QuantizeLinear to float8 followed by DequantizeLinear is the nearest
ONNX pair; its scale divides where FakeConvert's multiplies, so no mapping is stated."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide
from opconform.oracle.kernels.fp_extremes import extremes_are_data

_F8 = {"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
    shift = np.asarray(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else np.zeros((), data.dtype)
    f8 = _F8[attributes["destination_type"]]
    t = data.dtype if policies["intermediate_precision"] == "input_type" else np.float64
    d, s, h = (np.asarray(a).astype(t) if a.dtype != t else a for a in (data, scale, shift))
    if t == np.float64:
        d, s, h = wide(data), wide(scale), wide(shift)
    with np.errstate(all="ignore"):
        x = (d * s - h).astype(t)
        if policies["saturation"] == "saturate":
            top = float(ml_dtypes.finfo(f8).max)
            x = np.where(np.isnan(x), x, np.clip(x, -top, top)).astype(t)
        x = x.astype(f8).astype(t)
        y = ((x + h) / s).astype(t)
    return (np.broadcast_to(y, data.shape).astype(data.dtype),)
