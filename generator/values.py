"""Element and array strategies with the edge values of every element type (element_edges.py,
re-exported here).

Float values travel as bit patterns, so NaN payloads, signalling NaNs and -0.0 survive. Each
array first draws whether it is "edgy": plain arrays hold small, readable values (and shrink to
zeros); edgy ones mix in the edge values. `edge_classes(dtype)` names the classes a type has and
`classes_in(array)` names those an array holds: tests measure coverage with them.

    >>> from opconform.generator import values
    >>> values.arrays("float32", (2, 3))           # SearchStrategy[np.ndarray]
    >>> values.elements("int64", edge=True)         # SearchStrategy[np.int64]
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.element_edges import (  # noqa: F401 - the edge values, drawn from here and re-exported
    CLASS_ORDER, EMPTY_TENSOR, NARROWER, _STRINGS, _from_bits, _np, _to_bits, classes_in, edge_classes, edge_values,
    from_elements, nan_payloads_in, value_classes,
)

__all__ = ["elements", "arrays", "edge_values", "edge_classes", "classes_in", "nan_payloads_in", "NARROWER",
           "from_elements", "storage_elements", "pick", "codes", "choose", "integers", "sweep", "EMPTY_TENSOR", "CLASS_ORDER", "value_classes"]

# ------------------------------------------------------------------ strategies
@lru_cache(maxsize=None)
def _regular(name: str) -> st.SearchStrategy:
    """Small, readable values in storage form; they shrink toward zero."""
    kind = dtypes.get(name).kind
    if kind == "float":
        dt = _np(name)
        return st.one_of(st.integers(-8, 8), st.floats(-100, 100, width=32)).map(
            lambda v: int(_to_bits(np.array([v]).astype(dt))[0])
        )
    if kind in ("int", "uint"):
        info = ml_dtypes.iinfo(_np(name))
        return st.integers(max(int(info.min), -8), min(int(info.max), 8))
    if kind == "bool":
        return st.booleans()
    if kind == "string":
        return st.sampled_from(_STRINGS[:4]) | st.text("abcxyz", max_size=3)
    raise ValueError(f"no regular values for {name}")


_WIDE = st.integers(0, (1 << 16) - 1)


def pick(draw, options: Sequence):
    """One of `options`, close to uniformly. Hypothesis favours the first option of sampled_from and
    one_of heavily (it is the simplest); an index taken modulo from a wide integer spreads the
    choice evenly while still shrinking to the first option."""
    return options[draw(_WIDE) % len(options)]


@lru_cache(maxsize=None)
def _edge(name: str) -> st.SearchStrategy:
    """A class first (evenly), then one of its members: rare classes are as likely as big ones."""
    members = [st.sampled_from(m) for m in edge_values(name).values()]

    @st.composite
    def edge_value(draw):
        return draw(pick(draw, members))

    return edge_value()


@lru_cache(maxsize=None)
def _storage(name: str, edge: bool) -> st.SearchStrategy:
    return st.one_of(_regular(name), _edge(name)) if edge else _regular(name)


@lru_cache(maxsize=None)
def elements(name: str, *, edge: bool = True) -> st.SearchStrategy:
    """Scalars of one element type, as 0-d NumPy arrays (bit-exact)."""
    complex_kind = dtypes.get(name).kind == "complex"
    return storage_elements(name, edge=edge).map(lambda v: from_elements(name, list(v) if complex_kind else [v], ()))


@lru_cache(maxsize=None)
def storage_elements(name: str, *, edge: bool = True) -> st.SearchStrategy:
    """Element values in storage form; a complex element is a (real, imag) pair of bit patterns."""
    if dtypes.get(name).kind == "complex":
        part = "float32" if name == "complex64" else "float64"
        return st.tuples(_storage(part, edge), _storage(part, edge))
    return _storage(name, edge)


def arrays(name: str, shape: Sequence[int], *, elements: st.SearchStrategy | None = None,
           edge: bool | None = None) -> st.SearchStrategy[np.ndarray]:
    """Arrays of one element type and shape. `elements`: values in storage form (see
    storage_elements). Otherwise each array is drawn in one of three modes: plain (small values;
    Hypothesis shrinks toward it), mixed (plain and edge values) or sweep (element k is from edge
    class (offset + k) mod #classes, so an array of ten or so elements holds every class).
    `edge`: None draws the mode, True excludes plain, False is plain only."""
    shape = tuple(int(s) for s in shape)
    if elements is None:
        return _plain_arrays(name, shape, edge)
    return _arrays(name, shape, elements, edge)


@lru_cache(maxsize=4096)
def _plain_arrays(name: str, shape: tuple[int, ...], edge: bool | None) -> st.SearchStrategy[np.ndarray]:
    return _arrays(name, shape, None, edge)


def sweep(name: str, n: int) -> st.SearchStrategy[list]:
    """n values in storage form, one per edge class in turn from a drawn offset."""
    return _sweep(name, n)


@lru_cache(maxsize=4096)
def _sweep(name: str, n: int) -> st.SearchStrategy[list]:
    """n elements walking through the edge classes from a drawn offset (a member of each drawn)."""
    kind = dtypes.get(name).kind
    part = ("float32" if name == "complex64" else "float64") if kind == "complex" else name
    classes = tuple(st.sampled_from(m) for m in edge_values(part).values())
    if not classes:
        return st.lists(storage_elements(name), min_size=n, max_size=n)
    return _walk(classes, n, kind == "complex", part)


# Composites are defined once, at module level, and parametrized: `@st.composite` inside a
# function re-reads the function's source (inspect.getsource) on every call, which took a quarter
# of the time of drawing a case.
@st.composite
def _walk(draw, classes: tuple, n: int, complex_kind: bool, part: str) -> list:
    offset = draw(_WIDE) % len(classes)
    picked = [draw(classes[(offset + k) % len(classes)]) for k in range(n)]
    if complex_kind:  # (real, imag): the walk on the real part, a plain imaginary part
        return [(v, draw(_regular(part))) for v in picked]
    return picked


# Hypothesis draws at most a few thousand choices per example; bigger (stress) tensors repeat a
# drawn block of this many elements
MAX_DRAWN_ELEMENTS = 2048


def _arrays(name: str, shape: tuple[int, ...], elements: st.SearchStrategy | None,
            edge: bool | None) -> st.SearchStrategy[np.ndarray]:
    modes = ("plain", "mixed", "sweep", "sweep") if edge is None else (("mixed", "sweep") if edge else ("plain",))
    return _build_array(name, shape, elements, modes)


@st.composite
def _build_array(draw, name: str, shape: tuple[int, ...], elements: st.SearchStrategy | None,
                 modes: tuple[str, ...]) -> np.ndarray:
    total = int(np.prod(shape, dtype=np.int64))
    n = min(total, MAX_DRAWN_ELEMENTS)
    if elements is not None:
        flat = draw(st.lists(elements, min_size=n, max_size=n))
    else:
        mode = pick(draw, list(modes))
        if dtypes.get(name).kind == "complex":  # (real, imag) pairs: element by element
            flat = draw(_sweep(name, n)) if mode == "sweep" else draw(
                st.lists(storage_elements(name, edge=mode == "mixed"), min_size=n, max_size=n))
            flat = [b for pair in flat for b in pair]
        else:
            offset = draw(_WIDE) if mode == "sweep" else 0
            flat = _Table.of(name).storage(mode, codes(draw, n), offset)
    block = from_elements(name, flat, (n,))
    return (block if n == total else np.resize(block, total)).reshape(shape)


def codes(draw, n: int) -> list[int]:
    """n integers in [0, 65535] from one Hypothesis choice (a byte string): per-element draws cost
    tens of microseconds each, and arrays have hundreds of elements. All zero when shrunk."""
    return np.frombuffer(draw(_codes(n)), dtype="<u2").tolist()


def choose(draw, options: Sequence, n: int) -> list:
    """n of `options` (with repeats), from one choice; shrinks to the first option."""
    return [options[c % len(options)] for c in codes(draw, n)]


def integers(draw, lo: int, hi: int, n: int) -> list[int]:
    """n integers in [lo, hi]; they shrink toward the value nearest zero, as st.integers does.
    Up to 65,536 values from one choice; a wider range (an index far out of range) element by element."""
    if hi < lo:
        raise ValueError(f"integers in [{lo}, {hi}]: expected lo <= hi")
    if hi - lo >= 1 << 16:
        return draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    table = _nearest_zero_first(lo, hi)
    return [table[c % len(table)] for c in codes(draw, n)]


# the plain values of a string: numbers as text (integers, decimals, exponents, infinities and
# NaN in the spellings conversions read), so that a relation such as Cast's "the string is a
# number" is held by value repair rather than by a hook
NUMBER_TEXT = ("0", "1", "-1", "2", "-7", "42", "100", "255", "-128", "0.5", "-2.5", "3.14", "100.5", "1e-5", "1E8",
               "+INF", "INF", "-inf", "NaN", "nan")


def range_steps(name: str, lo: float, hi: float, step: float = 1.0) -> tuple[int, int, float] | None:
    """(k_lo, k_hi, step): the multiples k * step of the type `name` in [lo, hi] (integer types:
    step 1, the range clipped to the type's); None for a type that holds no such numbers (bool,
    string, complex) or an empty range."""
    kind = dtypes.get(name).kind
    if kind not in ("int", "uint", "float"):
        return None
    if kind != "float":
        info = ml_dtypes.iinfo(_np(name))  # int4 and uint4 too
        step, lo, hi = 1.0, max(lo, int(info.min)), min(hi, int(info.max))
    k_lo, k_hi = math.ceil(lo / step), math.floor(hi / step)
    return None if k_lo > k_hi else (k_lo, k_hi, step)


def ranged(draw, name: str, shape: Sequence[int], lo: float, hi: float, step: float = 1.0) -> np.ndarray | None:
    """An array of multiples of `step` in [lo, hi] (see range_steps; None where it gives none).
    For inputs whose values set sizes (a port's `values: {typical: ...}`)."""
    steps = range_steps(name, lo, hi, step)
    if steps is None:
        return None
    k_lo, k_hi, step = steps
    ks = np.asarray(integers(draw, k_lo, k_hi, int(np.prod(shape, dtype=np.int64))), dtype=np.float64)
    return multiples(name, ks, step, shape)


def multiples(name: str, ks: np.ndarray, step: float, shape: Sequence[int]) -> np.ndarray:
    """ks * step as an array of type `name` and the given shape (exact: ks are small integers)."""
    exact = ks * step if dtypes.get(name).kind == "float" else np.asarray(ks).astype(np.int64)
    return np.asarray(exact).astype(_np(name)).reshape(tuple(int(s) for s in shape))


def plain_values(name: str) -> np.ndarray:
    """The plain values of a type, as an array of it: the small integers 0, 1, -1, ... 8, -8 in
    its range and, for floats, a grid of readable values across [-100, 100] (see _Table)."""
    kind = dtypes.get(name).kind
    if kind == "string":
        return np.array(NUMBER_TEXT, dtype=object)
    if kind not in ("float", "int", "uint", "bool"):
        return np.array([], dtype=object)  # complex numbers: no plain values to offer
    t = _Table.of(name)
    if kind == "float":
        return _from_bits(name, np.concatenate([t.small, t.grid[:: 1 << 6]]).tolist())
    return np.array(t.small.tolist(), dtype=_np(name))


@lru_cache(maxsize=1024)
def _nearest_zero_first(lo: int, hi: int) -> tuple[int, ...]:
    return tuple(sorted(range(lo, hi + 1), key=lambda v: (abs(v), v < 0)))


@lru_cache(maxsize=None)
def _codes(n: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=2 * n, max_size=2 * n)


class _Table:
    """Every element of a drawn array from one 16-bit code, mapped through tables built once per
    type: one Hypothesis choice (a byte string) per array instead of several per element, which
    made drawing arrays most of what drawing a case cost. All-zero codes (where Hypothesis shrinks
    to) give all-zero arrays.

    A code's low bit picks, in "mixed" mode, plain (0) or edge (1); the rest picks the value:
    plain values are the small integers 0, 1, -1, 2, -2, ... 8, -8 (within the type's range) and,
    for floats, also a grid of readable values across [-100, 100] (odd codes); edge values are a
    class (evenly) then a member. In "sweep" mode element k is from edge class offset + k."""

    _cache: dict[str, "_Table"] = {}

    @classmethod
    def of(cls, name: str) -> "_Table":
        t = cls._cache.get(name)
        if t is None:
            t = cls._cache[name] = cls(name)
        return t

    def __init__(self, name: str):
        self.name, self.kind = name, dtypes.get(name).kind
        if self.kind == "float":
            small = np.array([0] + [s * k for k in range(1, 9) for s in (1, -1)], dtype=np.float64)
            grid = np.linspace(-100, 100, 1 << 14)
            with np.errstate(over="ignore", invalid="ignore"):
                self.small = _to_bits(small.astype(_np(name))).astype(np.uint64)
                self.grid = _to_bits(grid.astype(_np(name))).astype(np.uint64)
        elif self.kind in ("int", "uint"):
            info = ml_dtypes.iinfo(_np(name))
            ints = [0] + [s * k for k in range(1, 9) for s in (1, -1)]
            self.small = np.array([v for v in ints if info.min <= v <= info.max], dtype=object)
            self.grid = None
        elif self.kind == "bool":
            self.small, self.grid = np.array([False, True], dtype=object), None
        else:  # string
            self.small, self.grid = np.array(_STRINGS[:4] + ["abc", "x", "zy", "cab"], dtype=object), None
        members = list(edge_values(name).values())
        self.classes = len(members)
        width = max((len(m) for m in members), default=1)
        dtype = np.uint64 if self.kind == "float" else object
        self.edge = (np.array([list(np.resize(np.array(m, dtype=dtype), width)) for m in members], dtype=dtype)
                     if members else None)

    def plain(self, codes: np.ndarray) -> np.ndarray:
        if self.grid is None:
            return self.small[codes % len(self.small)]
        half = codes >> 1  # even codes: a small integer; odd: the grid
        return np.where(codes & 1, self.grid[half % len(self.grid)], self.small[half % len(self.small)])

    def edges(self, classes: np.ndarray, codes: np.ndarray) -> np.ndarray:
        return self.edge[classes % self.classes, codes % self.edge.shape[1]]

    def storage(self, mode: str, drawn: list[int], offset: int) -> list:
        codes = np.asarray(drawn, dtype=np.int64)
        if mode == "plain" or self.edge is None:
            out = self.plain(codes)
        elif mode == "sweep":
            out = self.edges(offset + np.arange(codes.size), codes)
        else:
            rest = codes >> 1
            out = np.where(codes & 1, self.edges(rest, rest // max(self.classes, 1)), self.plain(rest))
        return out.tolist()
