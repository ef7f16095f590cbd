"""ONNX LRN: X / (bias + alpha / size * square_sum)^beta, square_sum over a window of channels."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from opconform.oracle.kernels.linalg import narrow, widen


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    size = int(attributes["size"])
    below, above = (size - 1) // 2, -(-(size - 1) // 2)  # floor and ceil of (size - 1) / 2
    w = widen(x)
    # channel c sums channels [c - below, c + above]; zero padding stands for the clipped ends
    pad = [(0, 0)] * x.ndim
    pad[1] = (below, above)
    with np.errstate(all="ignore"):  # squares of huge values overflow to inf, NaN stays NaN: as meant
        squares = w * w
        if x.shape[1] == 0:  # no channels: nothing to sum (and no window fits the padding alone)
            square_sum = squares
        else:
            square_sum = sliding_window_view(np.pad(squares, pad), size, axis=1).sum(axis=-1)
        y = w / (attributes["bias"] + attributes["alpha"] / size * square_sum) ** attributes["beta"]
    return (narrow(y, x.dtype),)
