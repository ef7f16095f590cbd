"""ONNX Shape: the input's shape as int64, sliced by start/end with the text's clamping to [0, r]."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    shape = np.shape(inputs[0])
    # Python slicing adds r to negative bounds and clamps to [0, r], exactly the text's rule
    return (np.array(shape[attributes.get("start", 0):attributes.get("end")], dtype=np.int64),)
