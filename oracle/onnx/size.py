"""ONNX Size: the number of elements of the input, as an int64 scalar."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    return (np.array(np.size(inputs[0]), dtype=np.int64),)
