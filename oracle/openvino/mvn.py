"""OpenVINO MVN-6: data minus its mean over the axes; with normalize_variance, divided by
sqrt(variance + eps) (inside_sqrt) or sqrt(variance) + eps (outside_sqrt), the variance the mean of
the squared deviations (erratum sum_for_variance), by the policy intermediate_precision (wide:
float64, rounded once; input_type: in data's type)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.precision import mean, to_type, working


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    axes = tuple(sorted({int(a) % data.ndim for a in np.asarray(inputs[1]).reshape(-1)})) if data.ndim else ()
    x = working(data, policies)
    with np.errstate(all="ignore"):  # inf - inf, 0 / 0: the formula's IEEE result
        o = x - mean(x, axes, keepdims=True)
        if attributes["normalize_variance"]:
            var = mean(o * o, axes, keepdims=True)
            eps = x.dtype.type(float(attributes["eps"]))
            o = o / (np.sqrt(var + eps) if attributes["eps_mode"] == "inside_sqrt" else np.sqrt(var) + eps)
    return (to_type(o, data.dtype),)
