"""OpenVINO ReverseSequence-1: along seq_axis, the first seq_lengths[i] elements of batch slice i
reversed, the rest kept; any two distinct axes of the tensor (ONNX's kernel takes 0 and 1 only)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, lengths = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.float64).astype(np.int64)
    b = int(attributes.get("batch_axis", 0)) % data.ndim
    s = int(attributes.get("seq_axis", 1)) % data.ndim
    j = np.arange(data.shape[s])
    # source position along seq_axis, per batch row: L - 1 - j inside the reversed prefix, j after it
    source = np.where(j[None, :] < lengths[:, None], lengths[:, None] - 1 - j[None, :], j[None, :])
    shape = [1] * data.ndim
    shape[b], shape[s] = data.shape[b], data.shape[s]
    index = source.reshape(shape) if b < s else source.T.reshape(shape)
    return (np.take_along_axis(data, np.broadcast_to(index, data.shape), axis=s),)
