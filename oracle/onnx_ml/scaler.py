"""ai.onnx.ml Scaler-1: Y = (X - offset) * scale, each list of length 1 or F (the last axis),
absent ones the identity; in float64, rounded once to float32."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import ml
from opconform.oracle.kernels.elementwise import wide


@ml.quiet
def run(spec, inputs, attributes, policies):
    x = wide(inputs[0])  # a signaling NaN quiets silently
    offset = np.asarray(attributes.get("offset") or [0.0], dtype=np.float32).astype(np.float64)
    scale = np.asarray(attributes.get("scale") or [1.0], dtype=np.float32).astype(np.float64)
    return (((x - offset) * scale).astype(np.float32),)
