"""OpenVINO Interpolate-11: image zero-padded by pads_begin / pads_end, the output shape from
sizes or floor(scale * padded extent) over axes, then ONNX Resize's resampling
(oracle/onnx/resize.py) with the scale of each axis the ratio of the output to the padded input
extent (the document's scale[x] = output_shape[x] / input_shape[x], not the given scale).
linear_onnx is Resize's linear, cube_coeff its cubic_coeff_a, nearest_mode simple ceil when
downsampling and the integer part otherwise; the modes linear, bilinear_pillow and bicubic_pillow,
whose algorithm the document does not give, are refused by the spec as undefined."""
from __future__ import annotations

import numpy as np

from opconform import oracle, specs
from opconform.model import SpecVersion
from opconform.oracle.onnx.resize import resample
from opconform.oracle.kernels.fp_extremes import extremes_are_data

MODES = {"nearest": "nearest", "linear_onnx": "linear", "cubic": "cubic"}


def _padded(values, rank: int) -> list[int]:
    v = [int(p) for p in (values or [])][:rank]
    return v + [0] * (rank - len(v))


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    image = np.asarray(inputs[0])
    r = image.ndim
    begin, end = _padded(attributes.get("pads_begin"), r), _padded(attributes.get("pads_end"), r)
    x = np.pad(image, list(zip(begin, end)))
    axes = list(range(r)) if len(inputs) < 3 or inputs[2] is None else [int(a) for a in np.asarray(inputs[2]).reshape(-1)]
    given = np.asarray(inputs[1]).reshape(-1)
    out = list(x.shape)
    for k, a in enumerate(axes):
        out[a] = int(given[k]) if attributes["shape_calculation_mode"] == "sizes" else \
            int(np.floor(float(given[k]) * x.shape[a]))
    rule = attributes.get("nearest_mode", "round_prefer_floor")
    a = {"mode": MODES[attributes["mode"]],
         "coordinate_transformation_mode": attributes.get("coordinate_transformation_mode", "half_pixel"),
         "nearest_mode": "ceil_downscaled" if rule == "simple" else rule,
         "cubic_coeff_a": float(attributes.get("cube_coeff", -0.75)),
         "antialias": 1 if attributes.get("antialias", False) else 0}
    onnx = specs.load("onnx::Resize-19")
    known = {p.name for p in onnx.policies}
    resolved = oracle.resolve_policies(onnx, {k: v for k, v in policies.items() if k in known})
    return (resample(x, None, None, np.asarray(out, np.int64), a, resolved),)
