"""OpenVINO ScatterNDUpdate-15: updates reduced into the elements or slices that the index tuples
name (negative indices from the end). sub subtracts each update (XOR for bool); the others are the
shared scatter's (min and max by the policy nan_handling, oracle/onnx/scatterelements.py)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.indexing import positive
from opconform.oracle.onnx.scatterelements import scatter_reduce

ONNX_NAMES = {"none": "none", "sum": "add", "prod": "mul", "min": "min", "max": "max"}


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices, updates = (np.asarray(x) for x in inputs)
    k = indices.shape[-1]
    idx = positive(indices, np.asarray(data.shape[:k], dtype=np.int64))
    target = tuple(np.moveaxis(idx, -1, 0))  # one index array per leading data axis
    updates = updates.reshape(indices.shape[:-1] + data.shape[k:])  # a one-element updates where 0-D is due
    reduction = attributes.get("reduction", "none")
    if reduction != "sub":
        return (scatter_reduce(data, target, updates, ONNX_NAMES[reduction], policies),)
    out = np.array(data, copy=True)
    with np.errstate(all="ignore"):  # wrapping integers, inf - inf: the IEEE / two's complement result
        (np.logical_xor if out.dtype == np.bool_ else np.subtract).at(out, target, updates.astype(out.dtype))
    return (out,)
