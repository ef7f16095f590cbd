"""ONNX TensorScatter-24: past_cache with update's slices written along the sequence axis from
each batch's write index (zero when write_indices is absent), modulo max_sequence_length in
circular mode: the text's loops as one put_along_axis (the positions of a batch are distinct,
as sequence_length <= max_sequence_length)."""
from __future__ import annotations

import numpy as np

from opconform.specs import normalize_axis


def run(spec, inputs, attributes, policies):
    past, update = np.asarray(inputs[0]), np.asarray(inputs[1])
    given = inputs[2] if len(inputs) > 2 else None
    axis = normalize_axis(int(attributes["axis"]), past.ndim)
    batch, length, longest = past.shape[0], update.shape[axis], past.shape[axis]
    starts = np.zeros(batch, np.int64) if given is None else np.asarray(given, np.int64).reshape(batch)
    positions = starts[:, None] + np.arange(length, dtype=np.int64)[None, :]
    if attributes["mode"] == "circular" and longest:
        positions %= longest
    lead = (batch,) + (1,) * (axis - 1) + (length,) + (1,) * (past.ndim - axis - 1)
    present = past.copy()
    np.put_along_axis(present, np.broadcast_to(positions.reshape(lead), update.shape), update, axis=axis)
    return (present,)
