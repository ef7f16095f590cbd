"""ONNX InstanceNormalization: per instance and channel, scale * (x - mean) / sqrt(var + eps) + B.

Policies (see the spec): intermediate_precision (oracle/kernels/precision.py): every step in
float64 and rounded once (wide), every step rounded to the input type with the means summed in it
(input_type), or every step rounded to the input type but the means summed in float64 and rounded
once (accumulate_wide: NumPy's mean of float16, which onnx.reference calls); evaluation_order: Normalized = (x - mean) * InvStdDev, then * scale + B
(normalize_first, LayerNormalization's equations) or the text's formula from left to right,
((scale * (x - mean)) / sqrt(var + eps)) + B (as_written, onnx.reference), which overflow apart."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision


def run(spec, inputs, attributes, policies):
    x, scale, bias = (np.asarray(v) for v in inputs)
    channel = (-1,) + (1,) * (x.ndim - 2)  # scale and B apply along axis 1
    work = x.dtype if precision.narrow_policy(policies) else np.float64
    axes = tuple(range(2, x.ndim))
    # a mean whose terms pass the type's range in some orders and not others (input_type) has no
    # one outcome: onnxruntime and OpenVINO give B where the oracle's order gives NaN
    if policies.get(precision.POLICY) == "input_type":  # accumulate_wide sums its means in float64
        precision.refuse_order_dependent_sum(spec.id, x, axes, policies)
    s = precision.to_type(scale, work).reshape(channel)
    b = precision.to_type(bias, work).reshape(channel)
    wide_means = work == np.float64 or policies.get(precision.POLICY) == "accumulate_wide"
    normalized, mean, inv_std = precision.standardize(x, axes, attributes["epsilon"], work, wide_means=wide_means)
    with np.errstate(all="ignore"):
        if policies.get("evaluation_order", "normalize_first") == "as_written":
            xs = precision.to_type(x, work)
            std = np.reciprocal(inv_std).astype(work)  # sqrt(var + eps), rounded to the working type
            y = (((s * (xs - mean).astype(work)).astype(work) / std).astype(work) + b).astype(work)
        else:
            y = ((normalized * s).astype(work) + b).astype(work)
    return (precision.to_type(y, x.dtype),)
