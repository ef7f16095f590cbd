"""ai.onnx.ml CategoryMapper-1: strings to their integers, or integers to their strings (by X's
element type), the default where an element is not a key."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    strings = list(attributes["cats_strings"])
    ints = [int(v) for v in attributes["cats_int64s"]]
    if x.dtype.kind in "OUST":
        table = dict(zip(strings, ints))
        flat = [table.get(str(v), int(attributes["default_int64"])) for v in x.reshape(-1)]
        return (np.asarray(flat, dtype=np.int64).reshape(x.shape),)
    table = dict(zip(ints, strings))
    flat = [table.get(int(v), attributes["default_string"]) for v in x.reshape(-1)]
    return (np.asarray(flat, dtype=object).reshape(x.shape),)
