"""OpenVINO ScatterUpdate-3: data[..., indices[m, .., p], ...] = updates[..., m, .., p, ...] along
axis (whole slices; the relations keep the indices distinct and in [0, s - 1])."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.indexing import axis_of


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices, updates = (np.asarray(x) for x in inputs[:3])
    axis = axis_of(int(np.asarray(inputs[3]).reshape(-1)[0]), data.ndim)
    out = np.array(data, copy=True)
    # updates as [before axis, every index, after axis]: one slice per index, in the indices' order
    flat = updates.reshape(data.shape[:axis] + (indices.size,) + data.shape[axis + 1:])
    target = (slice(None),) * axis + (indices.reshape(-1).astype(np.int64),)
    out[target] = flat.astype(out.dtype)
    return (out,)
