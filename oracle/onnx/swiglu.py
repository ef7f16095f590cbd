"""SwiGLU: Swish_alpha(A) * B with Swish_alpha(a) = a * sigmoid(alpha * a), alpha rounded to
float32 as ONNX stores it. Policy intermediate_precision: float64 throughout, rounded once (wide),
or the gate rounded to A's type before it multiplies B in that type (input_type, the Swish
operator's output)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.elementwise import wide


def run(spec, inputs, attributes, policies):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    alpha = float(np.float32(attributes["alpha"]))
    with np.errstate(all="ignore"):
        gate = wide(a) * (1.0 / (1.0 + np.exp(-alpha * wide(a))))
        if precision.narrow_policy(policies):
            return ((precision.to_type(gate, a.dtype) * b).astype(a.dtype),)
        return (precision.to_type(gate * wide(b), a.dtype),)
