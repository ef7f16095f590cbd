"""Shared pieces of the indexing hooks (Gather*, Scatter*, TopK, CumSum, ...): index tensors that
are in bounds (or just out of them), duplicate-free index sets, an axis drawn after the rank."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import pins, values
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.specs import normalize_axis


def draw_axis(draw, d: Draft, rank: int, name: str = "axis") -> int:
    """Omit the axis attribute (its default) or set it within [-rank, rank-1]; the non-negative
    axis. A covering row's pin on the axis (omitted, a class, a value) is honoured."""
    if rank and draw(st.booleans()):
        d.attributes[name] = draw(st.integers(-rank, rank - 1))
    if pins.pinned(d, f"attr:{name}") is not pins.UNPINNED:
        pins.set_axis(d, name, pins.axis(d, name, d.attributes.get(name), rank))
    return normalize_axis(d.resolved.get(name, 0), rank)


def axis_size(d: Draft, name: str = "data") -> int:
    """The extent of input `name` along the (possibly negative) `axis` attribute."""
    x = d.input(name)
    return x.shape[normalize_axis(d.resolved["axis"], x.ndim)]


def ints(draw, shape, lo: int, hi: int) -> np.ndarray:
    """An int64 array of this shape with values in [lo, hi] (hi >= lo unless the array is empty)."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return np.zeros(shape, dtype=np.int64)
    return np.array(values.integers(draw, lo, hi, n), dtype=np.int64).reshape(shape)


def index_tensor(draw, dtype: str, shape, size) -> np.ndarray:
    """Indices in [-size, size-1] (`size` may be an array broadcast on the last axis), negative ones
    mixed in, in the element type dtype."""
    size = np.asarray(size, dtype=np.int64)
    positive = ints(draw, shape, 0, 1 << 20) % np.maximum(size, 1)
    negative = ints(draw, shape, 0, 1) == 1
    return np.where(negative, positive - size, positive).astype(dtypes.numpy_dtype(dtype))


def distinct_first(draw, outer_shape, n: int, m: int, axis: int) -> np.ndarray:
    """Per position of outer_shape, m distinct values of range(n) placed along `axis`: a random
    permutation per position (argsort of random keys), cut to m."""
    keys = ints(draw, tuple(outer_shape[:axis]) + (n,) + tuple(outer_shape[axis:]), 0, 1 << 20)
    return np.take(np.argsort(keys, axis=axis, kind="stable"), np.arange(m), axis=axis)


def break_index_bounds(draw, d: Draft, name: str, size: int) -> None:
    """Put one index just outside [-size, size-1] (size or -size-1)."""
    idx = np.array(d.input(name), copy=True)
    if idx.size == 0:
        idx = np.zeros((1,) * max(idx.ndim, 1), dtype=idx.dtype)
    flat = idx.reshape(-1)
    flat[draw(st.integers(0, flat.size - 1))] = draw(st.sampled_from([size, -size - 1]))
    d.set_input(name, flat.reshape(idx.shape))
    d.notes.append("indices:out_of_bounds")


def no_dependent_attributes(draw, d: Draft) -> None:
    """The hook's inputs step already drew the axis (indices depend on it)."""


def break_per_channel(name: str):
    """A breaker giving the named 1-D per-channel input C + 1 entries (C: axis 1 of the first input)."""
    def breaker(draw, d: Draft) -> None:
        i = d.port_index(name)
        d.present[i] = True
        d.inputs[i] = input_array(draw, d, i, shape=(d.inputs[0].shape[1] + 1,))
    return breaker
