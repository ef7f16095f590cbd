"""OpenVINO NormalizeL2-1: x / sqrt(eps_mode(sum of x**2 over the axes, eps)), eps_mode add (+) or
max, by the policy intermediate_precision (wide: float64, rounded once; input_type: in data's type).
Empty axes by the policy empty_axes (erratum empty_axes_gives_one): the formula over each element
alone, or each element divided by itself (1, 0 for a zero)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.precision import to_type, total, working
from opconform.oracle.kernels.fp_extremes import extremes_are_data


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    axes = tuple(sorted({int(a) % data.ndim for a in np.asarray(inputs[1]).reshape(-1)})) if data.ndim else ()
    if not axes and policies.get("empty_axes", "formula") == "itself":
        return (to_type(np.where(data == 0, 0, 1), data.dtype),)
    w = working(data, policies)
    eps = np.asarray(float(attributes["eps"])).astype(w.dtype)
    with np.errstate(all="ignore"):  # inf / inf: the formula's IEEE NaN
        s = total(w * w, axes, keepdims=True)
        y = w / np.sqrt(s + eps if attributes["eps_mode"] == "add" else np.maximum(s, eps))
    return (to_type(y, data.dtype),)
