"""OpenVINO SliceScatter-15: the document's NumPy snippet (a copy of data with updates written into
data[start:stop:step] over axes, NumPy's clamping). The spec's relation updates_shape computes the
slice's shape; the check here names the same relation should the two ever part."""
from __future__ import annotations

import numpy as np

from opconform.model import RelationBroken, SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, updates = np.asarray(inputs[0]), np.asarray(inputs[1])
    start, stop, step = ([int(v) for v in np.asarray(t).reshape(-1)] for t in inputs[2:5])
    axes = range(len(start)) if len(inputs) < 6 or inputs[5] is None else [int(a) for a in np.asarray(inputs[5]).reshape(-1)]
    index = [slice(None)] * data.ndim
    for a, b, e, s in zip(axes, start, stop, step):
        index[a % data.ndim] = slice(b, e, s)
    out = np.array(data, copy=True)
    if out[tuple(index)].shape != updates.shape:
        raise RelationBroken(spec.id, "updates_shape", "error",
                             f"SliceScatter updates of shape {list(updates.shape)} for a slice of shape {list(out[tuple(index)].shape)}")
    out[tuple(index)] = updates
    return (out,)
