"""Stress ladders: the sizes a stress profile climbs, and the worst-case inputs a spec's `stress:`
block asks for at one size.

    >>> sizes()[:4]
    [100, 316, 1000, 3162]
    >>> inputs, attributes, asked = draw(spec, spec.stress.cases[0], 1000, seed=0)

Inputs are drawn here from the spec's hints alone (shapes as expressions of n, value patterns),
not by Hypothesis: a ladder needs one input per size in exactly the shape the spec names as the
worst case, and the same input every time (a resumed run times the same thing).
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion, StressCase, StressInput
from opconform.specs import expr

START, STOP, PER_DECADE = 100, 10**7, 2  # 1e2 .. 1e7, two sizes per decade


def sizes(start: int = START, stop: int = STOP, per_decade: int = PER_DECADE) -> list[int]:
    """The ladder: start, start * 10**(1/per_decade), ... up to stop, rounded to integers."""
    if start < 1 or stop < start or per_decade < 1:
        raise ValueError(f"stress ladder {start}..{stop} with {per_decade} per decade; expected 1 <= start <= stop, per_decade >= 1")
    out, k = [], 0
    while True:
        n = int(round(start * 10 ** (k / per_decade)))
        if n > stop * (1 + 1e-9):
            return out
        out.append(n)
        k += 1


def shape(d: StressInput, n: int, where: str = "") -> tuple[int, ...]:
    """The input's shape at size n: each dimension an integer or an expression of n."""
    dims = []
    for dim in d.shape:
        v = expr.evaluate(dim, {"n": n}) if isinstance(dim, str) else dim
        if not float(v).is_integer() or v < 0:
            raise ValueError(f"{where}: dimension {dim!r} at n = {n} is {v!r}; expected an integer >= 0")
        dims.append(int(v))
    return tuple(dims)


def _rng(seed: int, case: StressCase, name: str, n: int) -> np.random.Generator:
    return np.random.default_rng([seed, n, zlib.crc32(f"{case.name}/{name}".encode())])


def _values(d: StressInput, dims: tuple[int, ...], n: int, rng: np.random.Generator, where: str) -> np.ndarray:
    dtype = dtypes.numpy_dtype(d.type)
    count = int(np.prod(dims, dtype=np.int64))
    t = dtypes.get(d.type)
    if d.values == "below":
        hi = int(expr.evaluate(d.below, {"n": n}))
        if hi < 1:
            raise ValueError(f"{where}: values below {d.below!r} at n = {n} is {hi}; expected at least 1")
        return rng.integers(0, hi, size=dims).astype(dtype)
    if d.values == "equal":
        return np.ones(dims, dtype=dtype)
    if d.values == "random":
        if t.is_float:
            return rng.standard_normal(dims).astype(dtype)
        if d.type == "bool":
            return rng.integers(0, 2, size=dims).astype(dtype)
        return rng.integers(0, min(100, int(np.iinfo(dtype).max)), size=dims).astype(dtype)
    # distinct, ascending, descending: 0 .. count-1, which the type must hold exactly
    ramp = np.arange(count, dtype=np.int64)
    exact = ramp.astype(dtype).astype(np.int64) if count else ramp
    if not np.array_equal(exact, ramp):
        raise ValueError(f"{where}: {count} {d.values} values do not fit {d.type} exactly; choose a wider type")
    if d.values == "distinct":
        ramp = rng.permutation(ramp)
    elif d.values == "descending":
        ramp = ramp[::-1]
    return np.ascontiguousarray(ramp.astype(dtype)).reshape(dims)


def draw(spec: SpecVersion, case: StressCase, n: int, seed: int = 0) -> tuple[list[np.ndarray | None], dict[str, Any], tuple[bool, ...]]:
    """(inputs in spec order, None for an absent optional one; attributes; outputs asked) of a
    worst case at ladder size n. Same seed, case and n: same inputs."""
    inputs: list[np.ndarray | None] = []
    for port in spec.inputs:
        d = case.inputs.get(port.name)
        where = f"{spec.id} stress case {case.name}, input {port.name}"
        inputs.append(None if d is None else _values(d, shape(d, n, where), n, _rng(seed, case, port.name, n), where))
    while inputs and inputs[-1] is None:  # trailing absent inputs are left off the node
        inputs.pop()
    asked = tuple(not case.outputs or p.name in case.outputs for p in spec.outputs)
    return inputs, dict(case.attributes), asked


def elements(arrays: Any) -> int:
    """Total elements of the arrays (None entries count nothing)."""
    return int(sum(np.size(a) for a in arrays if a is not None))


def nbytes(arrays: Any) -> int:
    """Total bytes of the arrays (None entries count nothing)."""
    return int(sum(np.asarray(a).nbytes for a in arrays if a is not None))
