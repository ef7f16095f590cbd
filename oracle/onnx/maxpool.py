"""ONNX MaxPool: the maximum of each window (oracle/kernels/conv.py geometry: pads or auto_pad,
strides, dilations, ceil_mode), and Indices: the flat index into X of the element it came from
(row-major, or with storage_order 1 column-major over the spatial axes), padding never selected.

Policies: `nan` (a NaN in a window is its maximum, or is passed over) and `ties` (the first or
last window position, in row-major scan order, holding the maximum gives its index)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import conv, pool


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    win = conv.window(x.shape[2:], attributes["kernel_shape"], attributes, ceil_mode=bool(attributes.get("ceil_mode")))
    y, indices = pool.maximum(spec.id, x, win, policies["nan"], policies["ties"],
                              column_major=attributes.get("storage_order") == 1)
    return (y, indices)
