"""ONNX AveragePool: the sum of each window's input elements over their count, the padding
counted with count_include_pad (oracle/kernels/pool.py). Policy intermediate_precision: the sum
and quotient in float64 (wide) or in T (input_type)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, pool


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    win = conv.window(x.shape[2:], attributes["kernel_shape"], attributes, ceil_mode=bool(attributes.get("ceil_mode")))
    return (pool.average(spec.id, x, win, bool(attributes.get("count_include_pad")), policies),)
