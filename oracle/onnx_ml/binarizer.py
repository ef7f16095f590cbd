"""ai.onnx.ml Binarizer-1: 1 where X > threshold (the float32 the model stores), else 0 (NaN included)."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    with np.errstate(invalid="ignore"):
        above = x.astype(np.float64) > float(attributes["threshold"]) if x.dtype.kind == "f" else \
            np.asarray([int(v) > attributes["threshold"] for v in x.reshape(-1)], dtype=bool).reshape(x.shape)
    return (above.astype(x.dtype),)
