"""OpenVINO Gather-8: data gathered along `axis` by indices, per batch over the first batch_dims
dimensions (negative batch_dims counts from the indices' rank). Negative indices count from the
end; an index outside [-s, s-1] gives 0 (the text's Example 7). ONNX's Gather has neither batch
dimensions nor zeros, so its kernel is not reused."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.specs import normalize_axis


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    axis = normalize_axis(int(np.asarray(inputs[2]).reshape(-1)[0]), data.ndim)
    b = int(attributes.get("batch_dims", 0))
    b = normalize_axis(b, indices.ndim)  # negative batch_dims counts from the indices rank
    s = data.shape[axis]
    idx = indices.astype(np.int64) if indices.dtype != np.uint64 else indices.astype(np.float64)
    outside = (idx < -s) | (idx >= s)
    idx = np.where(outside, 0, np.where(idx < 0, idx + s, idx)).astype(np.int64)
    batch = data.shape[:b]
    n = int(np.prod(batch, dtype=np.int64))
    flat_data = data.reshape((n,) + data.shape[b:])
    flat_idx, flat_out = idx.reshape((n,) + idx.shape[b:]), outside.reshape((n,) + idx.shape[b:])
    shape = data.shape[:axis] + indices.shape[b:] + data.shape[axis + 1:]
    out = np.zeros((n,) + shape[b:], dtype=data.dtype)
    for k in range(n):
        taken = np.take(flat_data[k], flat_idx[k], axis=axis - b) if s else out[k]
        # the zeros for indices out of range, laid out as the gathered dimensions lie
        mask = flat_out[k].reshape((1,) * (axis - b) + flat_out[k].shape + (1,) * (data.ndim - axis - 1))
        out[k] = np.where(mask, np.zeros((), dtype=data.dtype), taken)
    return (out.reshape(shape),)
