"""Unique, vectorized: unique values or unique slices along an axis, with all four outputs.

The open choices of the specs arrive as flags:
- nan_equal: whether NaN equals NaN (one group for every NaN) or each NaN is unique;
- nan_first: where NaN goes in ascending order (numpy puts it last);
- colex: slices compare lexicographically over their elements in C order (numpy, onnxruntime,
  OpenVINO's reference), or colexicographically (last element most significant);
- by_last: unsorted output in order of last (instead of first) occurrence;
- zeros_equal: -0.0 equals 0.0 (IEEE equality), or they are two values, -0.0 first (total order);
- complex_order: "lexicographic" (real part, then imaginary: numpy) or "magnitude" (|z|, then the
  angle in (-pi, pi]);
- string_order: "code_point" (numpy, Python; the same as UTF-8 bytes compared as unsigned, as
  std::string does) or "utf16" (UTF-16 code units: Java, .NET, JavaScript; characters past U+FFFF
  come before U+E000..U+FFFF).
Y keeps the bits of each group's first occurrence.

How: every element gets a dense rank code (equal elements share a code, codes ascend with the
value), computed with one argsort. Along an axis, each slice becomes a row of codes, and the
rows, written as big-endian bytes, sort lexicographically as byte strings: one more argsort.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opconform import dtypes


@dataclass(frozen=True)
class UniqueGroups:
    first: np.ndarray  # int64 (k,): position (element or slice index) of each group's first occurrence, output order
    inverse: np.ndarray  # int64 (n,): output group of every element / slice
    counts: np.ndarray  # int64 (k,)


def sort_key(x: np.ndarray, *, zeros_equal: bool = True, complex_order: str = "lexicographic",
             string_order: str = "code_point") -> tuple[np.ndarray, np.ndarray | None]:
    """A flat array that sorts and compares like the values under the flags, and the NaN mask
    (NaN keys sort last)."""
    flat = x.reshape(-1)
    kind = dtypes.get(dtypes.name_of(x.dtype)).kind
    if kind == "float":
        if not zeros_equal:
            with np.errstate(invalid="ignore"):  # a signalling NaN widens to NaN, which the mask finds
                wide = flat.astype(np.float64)  # exact for every narrower float
            nan = np.isnan(wide)
            return _dense_rank([_total_order(wide)], nan), nan
        wide = np.float32 if x.dtype.itemsize <= 4 else np.float64  # exact for float16/bfloat16
        with np.errstate(invalid="ignore"):  # NaN keys widen and add as NaN: the mask below finds them
            key = flat.astype(wide) + wide(0)  # -0.0 + 0.0 == +0.0
        return key, np.isnan(key)
    if kind == "complex":
        with np.errstate(invalid="ignore"):  # NaN parts stay NaN, and are made one key below
            key = flat + flat.dtype.type(0) if zeros_equal else flat.copy()
        nan = np.isnan(key)
        if complex_order == "lexicographic" and zeros_equal:
            key[nan] = complex(np.nan, np.nan)  # one sort position for every NaN, whatever its parts
            return key, nan
        with np.errstate(invalid="ignore"):
            re, im = key.real.astype(np.float64), key.imag.astype(np.float64)
            parts = [_total_order(re), _total_order(im)] if not zeros_equal else [re, im]
            # |z| and the angle order; the parts after them keep values that round alike apart
            lead = [np.abs(key).astype(np.float64), np.angle(key).astype(np.float64)] if complex_order == "magnitude" else []
        return _dense_rank(lead + parts, nan), nan
    if kind == "string":
        texts = [s.decode("utf-8", "surrogateescape") if isinstance(s, bytes) else str(s) for s in flat]
        if string_order == "utf16":
            # big-endian code units compare as bytes in code-unit order; surrogatepass keeps the
            # lone surrogates surrogateescape made of undecodable bytes
            texts = [t.encode("utf-16-be", "surrogatepass") for t in texts]
        return np.array(texts, dtype=object), None
    return flat, None


def _total_order(wide: np.ndarray) -> np.ndarray:
    """int64 keys of float64 values in IEEE total order: -0.0 just before +0.0 (NaN masked apart)."""
    bits = wide.view(np.int64)
    return np.where(bits < 0, -(bits & np.int64(0x7FFFFFFFFFFFFFFF)) - 1, bits)


def _dense_rank(keys: list[np.ndarray], nan: np.ndarray) -> np.ndarray:
    """int64 codes that sort and compare like the rows of `keys` (the first most significant),
    NaN positions after every other code."""
    n = nan.size
    codes = np.full(n, n, dtype=np.int64)  # NaN: past every rank
    keep = np.flatnonzero(~nan)
    if keep.size:
        cols = [k[keep] for k in keys]
        order = np.lexsort(cols[::-1])
        new = np.ones(keep.size, dtype=bool)
        new[1:] = np.any([c[order][1:] != c[order][:-1] for c in cols], axis=0)
        codes[keep[order]] = np.cumsum(new) - 1
    return codes


def _ascending_order(key: np.ndarray, nan: np.ndarray | None, nan_first: bool) -> np.ndarray:
    order = np.argsort(key)  # NaN sorts last; ties in any order (first occurrences come from a min below)
    if nan is not None:
        nn = int(np.count_nonzero(nan))
        if nn:
            tail = np.sort(order[key.size - nn:])  # NaNs in position order: distinct NaNs sort stably
            body = order[: key.size - nn]
            order = np.concatenate([tail, body] if nan_first else [body, tail])
    return order


def _group(order: np.ndarray, new: np.ndarray) -> UniqueGroups:
    """Groups from a sort order and a 'starts a new group' flag per sorted position (ascending output)."""
    n = order.size
    starts = np.flatnonzero(new)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = np.minimum.reduceat(order, starts).astype(np.int64) if n else np.zeros(0, np.int64)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    return UniqueGroups(first, inverse, counts)


def dense_groups(x: np.ndarray, *, nan_equal: bool, nan_first: bool, **order) -> UniqueGroups:
    """Unique elements of the flattened array, in ascending order; `order`: sort_key's flags."""
    key, nan = sort_key(x, **order)
    n = key.size
    order = _ascending_order(key, nan, nan_first)
    ks = key[order]
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = ks[1:] != ks[:-1]
        if nan is not None:
            ns = nan[order]
            both = ns[1:] & ns[:-1]
            new[1:] = np.where(both, not nan_equal, new[1:])
    return _group(order, new)


def _row_groups(codes: np.ndarray, colex: bool) -> UniqueGroups:
    """Unique rows of a non-negative integer matrix, rows ordered lexicographically."""
    rows, m = codes.shape
    if colex:
        codes = codes[:, ::-1]
    big = ">u4" if codes.size == 0 or int(codes.max()) < 2**32 else ">u8"
    width = m * np.dtype(big).itemsize
    keys = np.ascontiguousarray(codes.astype(big)).view(f"S{width}").reshape(rows)
    # Fixed-width byte strings compare like the padded bytes, so big-endian codes sort lexicographically.
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    new = np.ones(rows, dtype=bool)
    new[1:] = ks[1:] != ks[:-1]
    return _group(order, new)


def unique_groups(x: np.ndarray, axis: int | None, *, sorted: bool, nan_equal: bool = True,
                  nan_first: bool = False, colex: bool = False, by_last: bool = False, zeros_equal: bool = True,
                  complex_order: str = "lexicographic", string_order: str = "code_point") -> UniqueGroups:
    """Unique elements (axis None) or unique slices along `axis` (already normalized)."""
    order = {"zeros_equal": zeros_equal, "complex_order": complex_order, "string_order": string_order}
    if axis is None:
        g = dense_groups(x, nan_equal=nan_equal, nan_first=nan_first, **order)
    else:
        slices = np.moveaxis(x, axis, 0)
        s = slices.shape[0]
        m = int(np.prod(slices.shape[1:], dtype=np.int64))
        if s == 0:
            g = UniqueGroups(*(np.zeros(0, np.int64),) * 3)
        elif m == 0:  # empty slices are all equal
            g = UniqueGroups(np.zeros(1, np.int64), np.zeros(s, np.int64), np.array([s], np.int64))
        else:
            codes = dense_groups(slices, nan_equal=nan_equal, nan_first=nan_first, **order).inverse.reshape(s, m)
            g = _row_groups(codes, colex)
    if sorted:
        return g
    return occurrence_order(g, last_occurrence(g) if by_last else g.first)


def last_occurrence(g: UniqueGroups) -> np.ndarray:
    last = np.zeros(g.first.size, dtype=np.int64)
    np.maximum.at(last, g.inverse, np.arange(g.inverse.size, dtype=np.int64))
    return last


def occurrence_order(g: UniqueGroups, position: np.ndarray) -> UniqueGroups:
    """The same groups, renumbered in the order of one position per group (its first or last
    occurrence): linear time, no second sort."""
    n = g.inverse.size
    marked = np.zeros(n, dtype=bool)
    marked[position] = True
    new_id = (np.cumsum(marked) - 1)[position]  # old group -> rank of its position
    first = np.empty_like(g.first)
    first[new_id] = g.first
    counts = np.empty_like(g.counts)
    counts[new_id] = g.counts
    return UniqueGroups(first, new_id[g.inverse], counts)


def unique_values(x: np.ndarray, axis: int | None, g: UniqueGroups) -> np.ndarray:
    """Y: each group's first occurrence, in output order."""
    if axis is None:
        return x.reshape(-1)[g.first]
    return np.take(x, g.first, axis=axis)
