"""Tensors as a person reads them in a report: small ones in full, large ones summarised, and the
elements where a backend's output differs from the expected one marked (which ones differ is
opconform.compare.differing's answer, under the rules the verdict used)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opconform import compare, containers, dtypes

FULL_LIMIT = 64  # tensors up to this many elements are shown element by element
HEAD = 8  # how many leading values a summary shows
DIFF_LIMIT = 20  # how many differing elements are listed for a large tensor
CELL_CHARS = 80  # longer values (strings) are cut, with an ellipsis


@dataclass
class Cell:
    text: str
    differs: bool = False


@dataclass
class TensorView:
    dtype: str
    shape: list[int]
    size: int
    rows: list[tuple[str, list[Cell]]] | None  # (row label, cells); None when summarised
    summary: str  # "min .. max, mean, NaNs" or the leading values


@dataclass
class Diff:
    count: int  # differing elements (None-like -1 when not comparable)
    total: int
    listing: list[tuple[str, str, str]]  # (index, expected, got) for the first few
    note: str = ""


def _text(v) -> str:
    s = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    return s if len(s) <= CELL_CHARS else s[: CELL_CHARS - 1] + "\u2026"


def _name(a: np.ndarray) -> str:
    try:
        return dtypes.name_of(a.dtype)
    except (KeyError, ValueError):
        return str(a.dtype)


def _kind(a: np.ndarray) -> str:
    try:
        return dtypes.get(dtypes.name_of(a.dtype)).kind
    except (KeyError, ValueError):
        return "string" if a.dtype == object else "float"


def _summary(a: np.ndarray) -> str:
    flat = a.reshape(-1)
    head = ", ".join(_text(x) for x in flat[:HEAD]) + (", \u2026" if flat.size > HEAD else "")
    kind = _kind(a)
    if flat.size == 0 or kind not in ("float", "int", "uint"):
        return f"[{head}]"
    # a signalling NaN (a legitimate edge value in a case) raises "invalid" when widened; it stays NaN
    with np.errstate(invalid="ignore"):
        f = flat.astype(np.float64)
    finite = f[np.isfinite(f)]
    parts = [f"[{head}]"]
    if finite.size:
        parts.append(f"min {finite.min():.6g}, max {finite.max():.6g}, mean {_mean(finite):.6g}")
    nans = int(np.isnan(f).sum())
    infs = int(np.isinf(f).sum())
    if nans:
        parts.append(f"{nans} NaN")
    if infs:
        parts.append(f"{infs} inf")
    return "; ".join(parts)


def _mean(finite: np.ndarray) -> float:
    """The mean of finite float64 values without overflow: a plain sum of values near the float64
    limit (edge values the generator draws on purpose) overflows to inf, or to NaN when signs mix."""
    scale = float(np.abs(finite).max())
    return float((finite / scale).mean() * scale) if scale else 0.0


def view(a: np.ndarray | None, mark: np.ndarray | None = None) -> TensorView | None:
    """A TensorView of `a`; `mark` (same shape, bool) flags differing elements. A sequence, optional
    or map (opconform.containers) shows one row per part, each part summarised, `mark` one flag per
    part (compare.differing's answer for a container)."""
    if a is None:
        return None
    if containers.is_container(a):
        return _container_view(a, mark)
    a = np.asarray(a)
    rows = None
    if 0 < a.size <= FULL_LIMIT:
        grid = a.reshape(1, -1) if a.ndim <= 1 else a.reshape(-1, a.shape[-1])
        m = np.zeros(grid.shape, bool) if mark is None else np.asarray(mark).reshape(grid.shape)
        lead = list(np.ndindex(*a.shape[:-1])) if a.ndim > 1 else [()]
        rows = [
            ("[" + ", ".join([*map(str, idx), ":"]) + "]" if a.ndim > 1 else "",
             [Cell(_text(x), bool(d)) for x, d in zip(grid[r], m[r])])
            for r, idx in enumerate(lead)
        ]
    return TensorView(_name(a), list(a.shape), int(a.size), rows, _summary(a))


def _parts(x) -> list[tuple[str, object]]:
    if isinstance(x, containers.SequenceValue):
        return [(f"[{k}]", v) for k, v in enumerate(x.items)]
    if isinstance(x, containers.OptionalValue):
        return [] if x.value is None else [("value", x.value)]
    return [("{" + _text(k) + "}", v) for k, v in zip(x.keys.tolist(), x.values)]


def _part_text(v) -> str:
    if containers.is_container(v):
        return containers.describe(v)
    a = np.asarray(v)
    return _text(a.item()) if a.ndim == 0 and a.dtype != object else f"{_name(a)} {list(a.shape)}: {_summary(a)}"


def _container_view(x, mark: np.ndarray | None) -> TensorView:
    parts = _parts(x)
    m = [False] * len(parts) if mark is None or np.ndim(mark) != 1 or len(mark) != len(parts) else list(mark)
    rows = [(label, [Cell(_part_text(v), bool(d))]) for (label, v), d in zip(parts, m)]
    return TensorView(x.type, [len(parts)], len(parts), rows or None, containers.describe(x))


def diff(expected: np.ndarray, got: np.ndarray, mask: np.ndarray | None) -> Diff:
    if containers.is_container(expected) or containers.is_container(got):
        found = compare.check(got, expected)
        ep = _parts(expected) if containers.is_container(expected) else []
        if mask is None:
            return Diff(-1, len(ep), [], found.message if found is not None else "")
        gp = _parts(got)
        listing = [(label, _part_text(e), _part_text(g)) for (label, e), (_, g), d in zip(ep, gp, mask) if d][:DIFF_LIMIT]
        return Diff(int(np.sum(mask)), len(ep), listing)
    e, g = np.asarray(expected), np.asarray(got)
    if mask is None:
        return Diff(-1, int(e.size), [], f"shapes differ: expected {list(e.shape)}, got {list(g.shape)}")
    flat = np.flatnonzero(mask)
    listing = [
        ("[" + ", ".join(map(str, np.unravel_index(k, e.shape))) + "]", _text(e.reshape(-1)[k]), _text(g.reshape(-1)[k]))
        for k in flat[:DIFF_LIMIT]
    ]
    note = "" if e.dtype == g.dtype else f"element types differ: expected {_name(e)}, got {_name(g)}"
    return Diff(int(flat.size), int(e.size), listing, note)
