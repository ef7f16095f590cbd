"""OpenVINO FakeQuantize-1: the document's expression per element, the five inputs broadcast
(each limit unidirectionally onto X: numpy's rule, which pdpd's with its axis -1 is; none:
equal shapes). ONNX's QuantizeLinear/DequantizeLinear pair quantizes
to an integer type with a scale and zero point; FakeQuantize's levels and two ranges are not that
pair's arithmetic (no integer type, rounding of the scaled position only), so the oracle is its own.

round() is the document's Python: half to even (policy `rounding`, since OpenVINO's reference
rounds half away from zero); the quotient and products in float64 (wide) or in T (input_type)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels import precision


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    w = [precision.working(np.asarray(a), policies) for a in inputs]
    levels = int(attributes["levels"])
    xv, il, ih, ol, oh = w
    with np.errstate(all="ignore"):
        lo, hi = np.minimum(il, ih), np.maximum(il, ih)
        scaled = (xv - il) / (ih - il) * np.asarray(levels - 1, dtype=xv.dtype)
        q = np.rint(scaled) if policies["rounding"] == "half_to_even" else np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
        mid = q / np.asarray(levels - 1, dtype=xv.dtype) * (oh - ol) + ol
        y = np.where(xv <= lo, ol, np.where(xv > hi, oh, mid))
    return (precision.to_type(np.broadcast_to(y, x.shape), x.dtype),)
