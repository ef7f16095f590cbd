"""Shared helpers of the indexing oracles (Gather*, Scatter*, TopK, Arg*, ...): axis and index
normalization, and scatter with an ONNX reduction, all vectorized."""
from __future__ import annotations

import numpy as np


def axis_of(axis: int, rank: int) -> int:
    """A possibly negative axis as a non-negative one (the spec's relations already bound it)."""
    return int(axis) + rank if int(axis) < 0 else int(axis)


def positive(indices: np.ndarray, size) -> np.ndarray:
    """Indices in [-size, size-1] as int64 in [0, size-1]; `size` may be an array broadcast on them."""
    idx = np.asarray(indices).astype(np.int64)
    return np.where(idx < 0, idx + np.asarray(size, dtype=np.int64), idx)


# ONNX reduction name -> ufunc applied unbuffered (ufunc.at), so duplicate targets accumulate.
_REDUCE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
# bool has no arithmetic in NumPy's sense that ONNX would mean; + is "or", * is "and".
_REDUCE_BOOL = {"add": np.logical_or, "mul": np.logical_and, "max": np.logical_or, "min": np.logical_and}


def scatter(data: np.ndarray, target: tuple, updates: np.ndarray, reduction: str = "none") -> np.ndarray:
    """A copy of data with updates written at data[target] (a tuple of index arrays or slices),
    combined with the existing value by `reduction` ('none' overwrites)."""
    out = np.array(data, copy=True)
    updates = np.asarray(updates).astype(out.dtype, copy=False)
    if reduction == "none":
        out[target] = updates
        return out
    table = _REDUCE_BOOL if out.dtype == np.bool_ else _REDUCE
    table[reduction].at(out, target, updates)
    return out
