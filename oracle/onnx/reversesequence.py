"""ONNX ReverseSequence: per batch entry, the first sequence_lens[i] steps along time reversed."""
from __future__ import annotations

import numpy as np


def run(spec, inputs, attributes, policies):
    x, lens = np.asarray(inputs[0]), np.asarray(inputs[1], dtype=np.int64)
    t_axis, b_axis = int(attributes["time_axis"]), int(attributes["batch_axis"])
    shape = [1] * x.ndim
    shape[t_axis] = x.shape[t_axis]
    t = np.arange(x.shape[t_axis]).reshape(shape)
    shape = [1] * x.ndim
    shape[b_axis] = x.shape[b_axis]
    n = lens.reshape(shape)
    source = np.broadcast_to(np.where(t < n, n - 1 - t, t), x.shape)  # time step each output step reads
    return (np.take_along_axis(x, source, axis=t_axis),)
