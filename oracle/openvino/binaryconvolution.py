"""OpenVINO BinaryConvolution-1, mode xnor-popcount: 2 * popcount(XNOR(patch, filter)) - B is the sum
of the products of the signed values (0 read as -1, 1 as +1), so the output is Convolution-1's
(ONNX Conv's kernel through its mapping) on 2 * data - 1 and 2 * filters - 1 with zero padding, plus
the padded positions' share: v * (sum of the signed filter - the convolution of ones), v being the
pad value as a signed bit (2 * pad_value - 1, policy pad_reading bit) or as the real number
(pad_value, policy real). Exact in float64; a sum T1 cannot hold is undefined."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken, SpecVersion


def _convolution(x: np.ndarray, w: np.ndarray, attributes: dict) -> np.ndarray:
    from opconform import oracle, specs

    spec = specs.load("openvino::Convolution-1")
    keys = ("strides", "pads_begin", "pads_end", "dilations", "auto_pad")
    (y,) = oracle.evaluate(spec, [x, w], spec.resolved_attributes({k: attributes[k] for k in keys if k in attributes}))
    return np.asarray(y, dtype=np.float64)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, filters = np.asarray(inputs[0]), np.asarray(inputs[1])
    signed_x = 2 * data.astype(np.float64) - 1
    signed_w = 2 * filters.astype(np.float64) - 1
    pad = float(attributes["pad_value"])
    v = 2 * pad - 1 if policies.get("pad_reading", "bit") == "bit" else pad
    y = _convolution(signed_x, signed_w, attributes)
    if v != 0:
        uncovered = signed_w.sum(axis=(1, 2, 3))[None, :, None, None] - _convolution(np.ones_like(signed_x), signed_w, attributes)
        y = y + v * uncovered
    t = dtypes.get(dtypes.name_of(data.dtype))
    if t.kind in ("int", "uint"):
        info = np.iinfo(data.dtype)
        if y.size and (y.min() < info.min or y.max() > info.max):
            raise RelationBroken(spec.id, "result_fits_type", "undefined", f"a sum in [{y.min():g}, {y.max():g}] does not fit {t.name}")
    return (y.astype(data.dtype),)
