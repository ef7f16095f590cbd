"""OpenVINO ScatterElementsUpdate-12: each update reduced into the element of data whose coordinate
along axis its index gives (its own coordinates elsewhere). use_init_val = false starts a reached
element from the reduction's identity instead of data's value; mean divides by the number of
values reduced (data's counted when used) and rounds integers down. min and max follow the policy
nan_handling (oracle/onnx/scatterelements.py)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import is_float
from opconform.oracle.kernels.indexing import axis_of, positive
from opconform.oracle.onnx.scatterelements import scatter_reduce
from opconform.oracle.kernels.fp_extremes import extremes_are_data

# OpenVINO's reduction names as the shared scatter's (ONNX's)
ONNX_NAMES = {"none": "none", "sum": "add", "prod": "mul", "min": "min", "max": "max"}


def _identity(data: np.ndarray, reduction: str):
    """The value a reduction starts from when data's element is not used."""
    dtype = data.dtype
    if reduction == "sum":
        return 0
    if reduction == "prod":
        return 1
    if dtype == np.bool_:
        return reduction == "min"
    if is_float(data):
        return np.inf if reduction == "min" else -np.inf
    info = np.iinfo(dtype)
    return info.max if reduction == "min" else info.min


def _mean(data: np.ndarray, target: tuple, updates: np.ndarray, use_init: bool) -> np.ndarray:
    exact = not is_float(data)  # integers summed exactly (Python ints), then floored
    work = data.astype(object if exact else np.float64)
    total = work.copy() if use_init else np.zeros_like(work)
    count = np.ones(data.shape, np.int64) if use_init else np.zeros(data.shape, np.int64)
    np.add.at(total, target, updates.astype(object if exact else np.float64))
    np.add.at(count, target, 1)
    reached = count > 0
    out = np.array(data, copy=True)
    if exact:
        out[reached] = [t // c for t, c in zip(total[reached], count[reached])]
    else:
        with np.errstate(all="ignore"):
            out[reached] = (total[reached] / count[reached]).astype(data.dtype)
    return out


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, indices, updates = (np.asarray(x) for x in inputs[:3])
    axis = axis_of(int(np.asarray(inputs[3]).reshape(-1)[0]), data.ndim)
    reduction = attributes.get("reduction", "none")
    use_init = bool(attributes.get("use_init_val", True))
    target = list(np.indices(indices.shape, sparse=True))
    target[axis] = positive(indices, data.shape[axis])
    target = tuple(target)
    if reduction == "mean":
        return (_mean(data, target, updates, use_init),)
    start = data
    if reduction != "none" and not use_init:
        start = np.array(data, copy=True)
        start[target] = _identity(data, reduction)
    return (scatter_reduce(start, target, updates, ONNX_NAMES[reduction], policies),)
