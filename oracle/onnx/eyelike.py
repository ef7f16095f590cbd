"""ONNX EyeLike: ones on diagonal k of a matrix shaped like the input, of type `dtype` or the input's."""
from __future__ import annotations

import numpy as np

from opconform import dtypes


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    code = attributes.get("dtype")
    out_type = x.dtype if code is None else dtypes.BY_ONNX[int(code)].numpy
    n, m = x.shape
    k = min(max(int(attributes["k"]), -n), m)  # beyond the matrix no diagonal is populated; keeps np.eye in range
    return (np.eye(n, m, k, dtype=bool).astype(out_type),)
