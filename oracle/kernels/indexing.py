"""Shared helpers of the indexing oracles (Gather*, Scatter*, TopK, Arg*, ...): axis and index
normalization, and scatter with an ONNX reduction, all vectorized."""
from __future__ import annotations

import numpy as np

from opconform.specs import normalize_axis


# a possibly negative axis as a non-negative one (the spec's relations already bound it)
axis_of = normalize_axis


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
        # The trailing Ellipsis makes out[target] a view even when target picks one element:
        # without it, NumPy stores a 0-d `updates` of an object (string) array as the element
        # itself (an ndarray inside the array) instead of copying the string it holds.
        out[tuple(target) + (Ellipsis,)] = updates
        return out
    table = _REDUCE_BOOL if out.dtype == np.bool_ else _REDUCE
    with np.errstate(all="ignore"):  # inf + -inf, overflow: the reduction's IEEE (or wrapping) result
        table[reduction].at(out, target, updates)
    return out


def _sort_keys(x: np.ndarray, nan_greatest: bool) -> tuple[np.ndarray, np.ndarray]:
    """(value key, NaN rank) for np.lexsort; floats widen to float64, which holds each exactly."""
    if x.dtype.kind in "iub":
        return x, np.zeros(x.shape, dtype=np.int8)
    with np.errstate(invalid="ignore"):  # narrow floats' NaN widens as NaN, ranked apart below
        wide = x.astype(np.float64)
    nan = np.isnan(wide)
    return np.where(nan, 0.0, wide), (nan if nan_greatest else ~nan).astype(np.int8)


def stable_order(x: np.ndarray, axis: int, descending: bool, nan_greatest: bool = True) -> np.ndarray:
    """Positions along `axis` that sort x, ties kept in index order (lower index first) both ways."""
    if not descending:
        return np.lexsort(_sort_keys(x, nan_greatest), axis=axis)
    # ascending stable sort of the reversed axis, reversed again: descending, ties lower-index first
    n = x.shape[axis]
    flipped = np.lexsort(_sort_keys(np.flip(x, axis), nan_greatest), axis=axis)
    return n - 1 - np.flip(flipped, axis)


def arg_extreme(x: np.ndarray, axis: int, largest: bool, last: bool, nan_wins: bool) -> np.ndarray:
    """Index (int64) of the max (largest) or min along axis: the first occurrence, or the last.
    nan_wins: a NaN is the extreme (as numpy.argmax); else NaN is passed over unless all are NaN."""
    with np.errstate(invalid="ignore"):  # narrow floats' NaN widens as NaN, handled below
        wide = x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.kind == "V" or "float" in x.dtype.name else x
    nan = np.isnan(wide) if wide.dtype.kind == "f" else np.zeros(x.shape, dtype=bool)
    reduce = np.max if largest else np.min
    filler = -np.inf if largest else np.inf
    clean = np.where(nan, filler, wide) if wide.dtype.kind == "f" else wide
    hit = clean == reduce(clean, axis=axis, keepdims=True)
    has_nan = np.any(nan, axis=axis, keepdims=True)
    all_nan = np.all(nan, axis=axis, keepdims=True)
    hit = np.where(has_nan, nan, hit) if nan_wins else np.where(all_nan, True, hit & ~nan)
    if last:
        return (x.shape[axis] - 1 - np.argmax(np.flip(hit, axis), axis=axis)).astype(np.int64)
    return np.argmax(hit, axis=axis).astype(np.int64)


def arg_reduce(inputs, attributes, policies, largest: bool) -> tuple[np.ndarray]:
    """ArgMax/ArgMin: the index tensor, with the reduced axis kept or dropped by keepdims."""
    x = np.asarray(inputs[0])
    axis = axis_of(attributes["axis"], x.ndim)
    out = arg_extreme(x, axis, largest=largest, last=bool(attributes["select_last_index"]),
                      nan_wins=policies["nan"] == "nan_selected")
    return (np.expand_dims(out, axis) if attributes["keepdims"] else out,)


def _float64(x) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # narrow floats' NaN widens as NaN (and makes the loss NaN)
        return np.asarray(x, dtype=np.float64)


def nll_loss(log_prob: np.ndarray, target: np.ndarray, weight, ignore_index, reduction: str) -> np.ndarray:
    """Negative log likelihood in float64: -log_prob[n, target[n, ...], ...] * weight[target], zero
    where target == ignore_index; 'mean' divides by the sum of the applied weights."""
    t = np.asarray(target).astype(np.int64)
    ignored = t == ignore_index if ignore_index is not None else np.zeros(t.shape, dtype=bool)
    safe = np.where(ignored, 0, t)
    picked = np.take_along_axis(_float64(log_prob), safe[:, None], axis=1)[:, 0]
    w = np.ones(t.shape) if weight is None else _float64(weight)[safe]
    w = np.where(ignored, 0.0, w)
    with np.errstate(all="ignore"):
        # An ignored element's loss is 0, not -picked * 0: picked stands in for it (class 0) and
        # may be NaN or inf, and NaN * 0 is NaN (onnx.reference and onnxruntime give 0 there).
        loss = np.where(ignored, 0.0, -picked * w)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return np.sum(loss)
        return np.sum(loss) / np.sum(w)
