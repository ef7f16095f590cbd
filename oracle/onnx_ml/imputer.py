"""ai.onnx.ml Imputer-1: the elements equal to the replaced value (every NaN when it is NaN) take
the imputed value of their feature (the last axis), or the one imputed value."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    if x.dtype.kind == "f":
        imputed = np.asarray(attributes["imputed_value_floats"], dtype=np.float32).astype(x.dtype)
        replaced = attributes["replaced_value_float"]
        hit = np.isnan(x) if np.isnan(replaced) else x == np.asarray(replaced, dtype=np.float32).astype(x.dtype)
    else:
        imputed = np.asarray(attributes["imputed_value_int64s"], dtype=np.int64).astype(x.dtype)
        hit = x.astype(np.int64) == int(attributes["replaced_value_int64"])
    return (np.where(hit, np.broadcast_to(imputed, x.shape) if x.size else x, x).astype(x.dtype),)
