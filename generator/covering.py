"""t-wise covering arrays over categorical factors, with constraints (IPOG).

    >>> from opconform.generator.covering import covering_array
    >>> from opconform.generator.factors import Factor
    >>> rows = covering_array([Factor("a", (0, 1, 2)), Factor("b", (0, 1, 2)), Factor("c", (0, 1))], t=2, seed=7)
    >>> len(rows), rows[0].keys()                                  # 9 rows: every pair of values
    (9, dict_keys(['a', 'b', 'c']))

Every t-tuple of values (t factors, one value each) that some allowed row holds is in at least
one row, and no row breaks the constraints. `allowed(assignment)` is a predicate over partial
assignments (factor name -> value), False when the values assigned already break a constraint
(`opconform.generator.factors.Constraints` is one); `scope` names the factors it reads (default
all), which keeps the search for allowed rows small.

Algorithm: IPOG (Lei et al., "IPOG: A General Strategy for T-Way Software Testing", 2007).
Factors are taken largest first; the first t give every combination of their values; each next
factor is added to every row with the value that covers the most uncovered t-tuples (horizontal
growth, a NumPy gather per row), and the tuples still uncovered get rows of their own or fill
free cells of earlier ones (vertical growth). Cells no tuple needed are filled at the end from the
seeded random source. Constraints: the allowed combinations of the scope's factors are
enumerated once (depth first, pruned by `allowed`); a tuple is required only if some allowed
combination extends it, and a cell is set only if the row stays extendable, so every finished
row is allowed.

Determinism: the seed (int or str) feeds `random.Random(f"opconform.covering:{seed}")`, which
seeds strings through SHA-512; it shuffles each factor's value order (so seeds vary the rows) and
fills free cells. Nothing iterates a set or a dict keyed by hash, so the rows are the same in
every process and on every machine, whatever PYTHONHASHSEED.

Why not a library: allpairspy 2.5.1 (MIT, pure Python) takes a filter function but its 3-wise
mode misses tuples (6 factors of 10 values: 214 rows, 3,504 of the 20,000 triples), and 2-wise
over 10 factors of 30 values took 22 s. coverwise 1.6.1 (Apache-2.0) drives a bundled native
executable and takes constraints in its own expression language, not a predicate, so the
constraints compiled from the specs' relations cannot be handed to it.
"""
from __future__ import annotations

import itertools
import random
from typing import Any, Callable, Collection, Mapping, Sequence

import numpy as np

from opconform.generator.factors import Factor

Allowed = Callable[[Mapping[str, Any]], bool]
_FREE = -1  # a cell no tuple has needed yet (IPOG's "don't care")
_ENUMERATE_LIMIT = 1 << 16  # scope combinations enumerated at most; past that, searched per question


def covering_array(factors: Sequence[Factor], t: int = 2, *, allowed: Allowed | None = None,
                   scope: Collection[str] | None = None, seed: int | str = 0,
                   given: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Rows (factor name -> value, in factor order) that cover every allowed t-tuple of values.

    t is capped at the number of factors (t >= number of factors: every allowed combination).
    No factor: one empty row. No allowed row at all: no rows. given: whole rows that are in the
    array already (e.g. rows whose cases exist): they come first, as given, and only the tuples
    they leave uncovered get rows of their own. A given row must hold a value of every factor and
    be allowed (a ValueError otherwise)."""
    factors = list(factors)
    names = [f.name for f in factors]
    if len(set(names)) != len(names):
        raise ValueError(f"factor names repeat: {names}")
    if t < 1:
        raise ValueError(f"t={t}; expected t >= 1")
    if not factors:
        return [{}]
    rng = random.Random(f"opconform.covering:{seed}")
    order = sorted(range(len(factors)), key=lambda i: -len(factors[i].values))  # stable: ties keep factor order
    levels = [[factors[i].values[j] for j in rng.sample(range(len(factors[i].values)), len(factors[i].values))]
              for i in order]
    sorted_names = [names[i] for i in order]
    in_scope = set(names if scope is None else scope)
    feasible = _Feasibility(sorted_names, levels, allowed, [k for k, n in enumerate(sorted_names) if n in in_scope])
    if not feasible.satisfiable:
        return []
    seeded = [_indices(row, sorted_names, levels, allowed) for row in given]
    rows = _ipog([len(v) for v in levels], min(t, len(factors)), feasible, seeded)
    out = []
    for row in rows:
        row = feasible.complete(row, rng)
        by_name = {sorted_names[k]: levels[k][v] for k, v in enumerate(row)}
        out.append({n: by_name[n] for n in names})
    return out


def covered(rows: Sequence[Mapping[str, Any]], names: Sequence[str], t: int) -> set[tuple]:
    """The t-tuples the rows hold, as (factor names, values) pairs (for tests and coverage reports)."""
    out = set()
    for combo in itertools.combinations(names, min(t, len(names))):
        for row in rows:
            out.add((combo, tuple(row[n] for n in combo)))
    return out


def _indices(row: Mapping[str, Any], names: list[str], levels: list[list[Any]], allowed: Allowed | None) -> list[int]:
    """A given row as value indices in the array's factor and value order."""
    try:
        cells = [levels[k].index(row[name]) for k, name in enumerate(names)]
    except (KeyError, ValueError):
        raise ValueError(f"given row {dict(row)} does not hold a value of every factor {names}") from None
    if allowed is not None and not allowed(dict(row)):
        raise ValueError(f"given row {dict(row)} breaks the constraints")
    return cells


# ----------------------------------------------------------------------- IPOG
def _ipog(sizes: list[int], t: int, feasible: "_Feasibility", given: Sequence[list[int]] = ()) -> list[list[int]]:
    n = len(sizes)
    first = tuple(range(t))
    needed = feasible.coverable(first)
    for row in given:
        needed[tuple(row[:t])] = False
    rows = [list(row) for row in given] + [list(v) + [_FREE] * (n - t) for v in np.argwhere(needed).tolist()]
    for k in range(t, n):
        tuples = _Tuples(sizes, t, k, feasible)
        for row in rows[:len(given)]:  # whole already: what they hold is covered
            tuples.mark(row, row[k])
        _grow_horizontally(rows, k, tuples, feasible)
        _grow_vertically(rows, k, tuples, feasible)
    return rows


class _Tuples:
    """The t-tuples of factor k with t-1 earlier factors, as one bool table: a row per
    combination of earlier factors and their values, a column per value of factor k; True
    while the tuple is required and not yet covered. A last all-False row stands for
    combinations in which a row has a free cell."""

    def __init__(self, sizes: list[int], t: int, k: int, feasible: "_Feasibility"):
        self.k = k
        self.combos = list(itertools.combinations(range(k), t - 1))
        self.positions = np.array(self.combos, dtype=np.int64).reshape(len(self.combos), t - 1)
        counts = [int(np.prod([sizes[j] for j in c], dtype=np.int64)) for c in self.combos]
        self.offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        # strides of each combination's values in C order, so a flat index is a dot product
        self.strides = np.array([[int(np.prod([sizes[j] for j in c[i + 1:]], dtype=np.int64)) for i in range(len(c))]
                                 for c in self.combos], dtype=np.int64).reshape(len(self.combos), t - 1)
        self.total = int(sum(counts))
        # the same, as Python ints: (offset, ((position, stride), ...)) per combination, for mark()
        self.plain = [(int(o), tuple(zip(c, map(int, st)))) for o, c, st in zip(self.offsets, self.combos, self.strides)]
        self.uncovered = np.zeros((self.total + 1, sizes[k]), dtype=bool)
        for c, offset, count in zip(self.combos, self.offsets, counts):
            self.uncovered[offset:offset + count] = feasible.coverable(c + (k,)).reshape(count, sizes[k])

    def index(self, rows: np.ndarray) -> np.ndarray:
        """(rows, combinations) flat indices of each row's values on each combination (the
        all-False row where a row has a free cell there)."""
        values = rows[:, self.positions]  # (rows, combinations, t-1)
        flat = (values * self.strides).sum(axis=-1) + self.offsets
        return np.where((values < 0).any(axis=-1), self.total, flat)

    def decode(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(combination number, values of its earlier factors) of each flat index."""
        c = np.searchsorted(self.offsets, flat, side="right") - 1
        rest = flat - self.offsets[c]
        strides = self.strides[c]  # (tuples, t-1)
        sizes_here = np.concatenate((np.full((len(c), 1), np.iinfo(np.int64).max), strides[:, :-1]), axis=1)
        return c, (rest[:, None] % sizes_here) // np.maximum(strides, 1)

    def mark(self, row: list[int], value: int) -> None:
        """Every tuple of factor k the row holds is covered (one row: plain Python beats NumPy's overhead)."""
        for offset, cells in self.plain:
            flat = offset
            for j, stride in cells:
                if row[j] < 0:
                    break
                flat += row[j] * stride
            else:
                self.uncovered[flat, value] = False


def _grow_horizontally(rows: list[list[int]], k: int, tuples: _Tuples, feasible: "_Feasibility") -> None:
    index = tuples.index(np.array(rows, dtype=np.int64))
    uncovered = tuples.uncovered
    for row, idx in zip(rows, index):
        if row[k] != _FREE:
            continue  # a given row: its cell is set
        gains = uncovered[idx].sum(axis=0)
        if feasible.trivial:
            best = int(gains.argmax())
        else:
            best = next((int(v) for v in np.argsort(-gains, kind="stable")
                         if gains[v] and feasible.extendable(row[:k] + [int(v)])), -1)
        if best < 0 or not gains[best]:
            continue  # nothing left for this row to cover: the cell stays free for vertical growth
        row[k] = best
        uncovered[idx, best] = False


def _grow_vertically(rows: list[list[int]], k: int, tuples: _Tuples, feasible: "_Feasibility") -> None:
    missing = np.argwhere(tuples.uncovered[:tuples.total])
    if not len(missing):
        return
    width = len(rows[0])
    cells = _Cells(np.array(rows, dtype=np.int64), k, tuples.uncovered.shape[1])
    # value of factor k first, so the rows made for one value take that value's other tuples
    missing = missing[np.lexsort((missing[:, 0], missing[:, 1]))]
    combos, earlier = tuples.decode(missing[:, 0])
    for (flat, value), c, values in zip(missing.tolist(), combos.tolist(), earlier.tolist()):
        if not tuples.uncovered[flat, value]:
            continue  # covered meanwhile, by a row filled for an earlier tuple
        cols, want = list(tuples.combos[c]) + [k], values + [value]
        target = next((r for r in cells.fitting(cols, want)
                       if feasible.trivial or feasible.extendable(_with(rows[r], cols, want))), None)
        if target is None:
            rows.append([_FREE] * width)
            target = len(rows) - 1
            cells.add_row(target)
        for c, v in zip(cols, want):
            if rows[target][c] != v:
                rows[target][c] = v
                cells.set(target, c, v)
        tuples.mark(rows[target], value)


def _with(row: list[int], cols: list[int], want: list[int]) -> list[int]:
    trial = list(row)
    for c, v in zip(cols, want):
        trial[c] = v
    return trial


class _Cells:
    """Which rows hold which value, and which have a free cell, in columns 0..k: one bitset
    (a Python int, bit r for row r) per column and value. A row can take a tuple when, in each
    of its columns, it holds the tuple's value or is free: a few ANDs and ORs over all rows at
    once, instead of a scan of the rows with free cells for every missing tuple."""

    def __init__(self, matrix: np.ndarray, k: int, width_k: int):
        sizes = [int(matrix[:, c].max(initial=-1)) + 1 for c in range(k)] + [width_k]
        self.holds = [[_bits(matrix[:, c] == v) for v in range(max(sizes[c], 1))] for c in range(k + 1)]
        self.free = [_bits(matrix[:, c] < 0) for c in range(k + 1)]

    def fitting(self, cols: list[int], want: list[int]):
        """Rows that can take `want` at `cols`, lowest first."""
        fits = -1  # every row
        for c, v in zip(cols, want):
            fits &= self._holding(c, v) | self.free[c]
        while fits:
            low = fits & -fits
            yield low.bit_length() - 1
            fits ^= low

    def _holding(self, c: int, v: int) -> int:
        while v >= len(self.holds[c]):  # a value no row held when the bitsets were made
            self.holds[c].append(0)
        return self.holds[c][v]

    def add_row(self, r: int) -> None:
        for c in range(len(self.free)):
            self.free[c] |= 1 << r

    def set(self, r: int, c: int, v: int) -> None:
        self.free[c] &= ~(1 << r)
        self._holding(c, v)
        self.holds[c][v] |= 1 << r


def _bits(mask: np.ndarray) -> int:
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


# ---------------------------------------------------------------- constraints
class _Feasibility:
    """Which partial rows (value indices, _FREE for unset) some allowed row extends.

    The constraints read only the factors in `scope` (positions), so a partial row is extendable
    when its scope cells match an allowed combination of the scope's factors. Those are
    enumerated once when few enough; otherwise each question is a depth-first search."""

    def __init__(self, names: list[str], levels: list[list[Any]], allowed: Allowed | None, scope: list[int]):
        self.names, self.levels, self.allowed = names, levels, allowed
        self.scope = [] if allowed is None else scope
        # a predicate that reads no factor is a constant: everything or nothing is allowed
        self.nothing = allowed is not None and not scope and not allowed({})
        self.trivial = not self.scope
        self.table: np.ndarray | None = None
        self._projections: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
        self._searched: dict[tuple[int, ...], tuple[int, ...] | None] = {}
        if not self.trivial and int(np.prod([len(levels[j]) for j in self.scope], dtype=np.float64)) <= _ENUMERATE_LIMIT:
            found = list(self._search({}, 0)) if allowed({}) else []
            self.table = np.array(found, dtype=np.int64).reshape(len(found), len(self.scope))

    @property
    def satisfiable(self) -> bool:
        if self.trivial:
            return not self.nothing
        if self.table is not None:
            return len(self.table) > 0
        return self._find({}) is not None

    def _assignment(self, cells: Mapping[int, int]) -> dict[str, Any]:
        return {self.names[j]: self.levels[j][v] for j, v in cells.items()}

    def _search(self, cells: dict[int, int], at: int):
        """Allowed completions (tuples over the scope) of `cells`, whose own values are allowed,
        depth first in value order; each extension is pruned by `allowed`."""
        if at == len(self.scope):
            yield tuple(cells[j] for j in self.scope)
            return
        j = self.scope[at]
        if j in cells:
            yield from self._search(cells, at + 1)
            return
        for v in range(len(self.levels[j])):
            cells[j] = v
            if self.allowed(self._assignment(cells)):
                yield from self._search(cells, at + 1)
            del cells[j]

    def _find(self, cells: dict[int, int]) -> tuple[int, ...] | None:
        key = tuple(cells.get(j, _FREE) for j in self.scope)
        if key not in self._searched:
            start = dict(cells)
            self._searched[key] = next(iter(self._search(start, 0)), None) if self.allowed(self._assignment(start)) else None
        return self._searched[key]

    def _projection(self, positions: tuple[int, ...]) -> set[tuple[int, ...]]:
        if positions not in self._projections:
            at = [self.scope.index(j) for j in positions]
            self._projections[positions] = set(map(tuple, self.table[:, at].tolist()))
        return self._projections[positions]

    def extendable(self, row: Sequence[int]) -> bool:
        if self.trivial:
            return True
        cells = {j: row[j] for j in self.scope if j < len(row) and row[j] != _FREE}
        if self.table is not None:
            positions = tuple(cells)
            return tuple(cells.values()) in self._projection(positions) if positions else len(self.table) > 0
        return self._find(cells) is not None

    def coverable(self, cols: tuple[int, ...]) -> np.ndarray:
        """Bool array over the values of factors `cols`: True where some allowed row holds them."""
        shape = tuple(len(self.levels[c]) for c in cols)
        inside = [c for c in cols if c in self.scope]
        if self.trivial or not inside:
            return np.full(shape, self.satisfiable, dtype=bool)
        sub = np.zeros(tuple(len(self.levels[c]) for c in inside), dtype=bool)
        if self.table is not None:
            at = [self.scope.index(c) for c in inside]
            sub[tuple(self.table[:, at].T)] = True
        else:
            for values in itertools.product(*(range(len(self.levels[c])) for c in inside)):
                sub[values] = self._find(dict(zip(inside, values))) is not None
        # spread over the unconstrained factors of `cols`
        view = sub.reshape(tuple(len(self.levels[c]) if c in self.scope else 1 for c in cols))
        return np.broadcast_to(view, shape).copy()

    def complete(self, row: list[int], rng: random.Random) -> list[int]:
        """The row with every free cell set: scope cells to an allowed combination that fits,
        the others at random."""
        row = list(row)
        free_scope = [j for j in self.scope if row[j] == _FREE]
        if free_scope and not self.trivial:
            cells = {j: row[j] for j in self.scope if row[j] != _FREE}
            if self.table is not None:
                at = [self.scope.index(j) for j in cells]
                fits = np.flatnonzero((self.table[:, at] == list(cells.values())).all(axis=1)) if at \
                    else np.arange(len(self.table))
                choice = self.table[int(fits[rng.randrange(len(fits))])].tolist()
            else:
                choice = list(self._find(cells))
            for j, v in zip(self.scope, choice):
                row[j] = v
        return [v if v != _FREE else rng.randrange(len(self.levels[j])) for j, v in enumerate(row)]
