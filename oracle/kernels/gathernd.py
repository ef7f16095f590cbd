"""GatherND, vectorized: one linear index per index tuple, then a single np.take.

Shared by ONNX GatherND-11/12/13 and OpenVINO GatherND-5/8; they differ only in how the batch
dimensions appear in the output shape, which the caller decides.
"""
from __future__ import annotations

import numpy as np


def gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """Output of shape indices.shape[:-1] + data.shape[batch_dims + m:], m = indices.shape[-1].

    Negative indices count from the back. Inputs are assumed to satisfy the spec's relations."""
    b = batch_dims
    m = indices.shape[-1]
    batch = int(np.prod(data.shape[:b], dtype=np.int64))
    dims = data.shape[b:b + m]
    tuples = int(np.prod(indices.shape[b:-1], dtype=np.int64))  # index tuples per batch entry
    block = int(np.prod(dims, dtype=np.int64))  # positions one tuple can address
    slice_shape = data.shape[b + m:]
    idx = indices.reshape(batch, tuples, m)
    linear = np.zeros((batch, tuples), dtype=np.int64)
    for j, size in enumerate(dims):  # a loop over the tuple's components (axes), not over tuples
        component = idx[..., j].astype(np.int64)
        component = np.where(component < 0, component + size, component)
        linear = linear * size + component
    linear += (np.arange(batch, dtype=np.int64) * block)[:, None]
    table = data.reshape((batch * block,) + slice_shape)
    out = np.take(table, linear.reshape(-1), axis=0)
    return out.reshape(indices.shape[:-1] + slice_shape)
