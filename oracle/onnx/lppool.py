"""ONNX LpPool: (sum over each window of |x|^p)^(1/p), padding adding 0 (oracle/kernels/pool.py).
Policy intermediate_precision: in float64 (wide) or in T (input_type)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, pool


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    win = conv.window(x.shape[2:], attributes["kernel_shape"], attributes, ceil_mode=bool(attributes.get("ceil_mode")))
    return (pool.lp(spec.id, x, win, float(attributes["p"]), policies),)
