"""How much of a spec version's t-wise factor space a set of cases really exercises.

    >>> from opconform.generator.tuple_coverage import tuple_coverage
    >>> cov = tuple_coverage(spec, cases, t=2)
    >>> cov.exercised, cov.total, cov.fraction, cov.missing[:3]

The tuples to exercise are every allowed t-tuple of factor values (t factors, one value each, some
row allowed by the spec's constraints holds them): exactly the tuples a covering array of the
spec holds, whatever its seed. Each case counts for the values it really holds
(generator/exercised.py), not for the row it was drawn for; an input holding several value
classes exercises each of them. Tuples naming the element type of a
type variable together with the absence of its only inputs are no tuple anyone can exercise, and
are left out of the total.
(Not reports/coverage.py, the report's operator table: this is the generator's own measure.)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from opconform.generator import exercised as ex
from opconform.generator.covering import covered, covering_array
from opconform.generator.factors import Factor, constraints, factors
from opconform.generator.value_classes import value_key
from opconform.model import SpecVersion

Tuple = tuple[tuple[str, ...], tuple[Any, ...]]  # (factor names, values), as covering.covered gives


@dataclass(frozen=True)
class TupleCoverage:
    t: int
    total: int  # allowed t-tuples that can be exercised
    exercised: int  # of those, held by some case
    missing: tuple[Tuple, ...]  # the others, in factor order

    @property
    def fraction(self) -> float:
        return 1.0 if self.total == 0 else self.exercised / self.total

    def summary(self) -> dict:
        """Small and JSON-friendly, for a plan or a report: t, total, exercised."""
        return {"t": self.t, "total": self.total, "exercised": self.exercised}


def required(spec: SpecVersion, fs: Sequence[Factor], t: int,
             rows: Sequence[Mapping[str, Any]] | None = None) -> set[Tuple]:
    """Every allowed t-tuple that a case can hold. rows: a covering array of `fs` of strength t or
    more (the plan's own rows), which holds every allowed t-tuple: saves building one."""
    if rows is None:
        cs = constraints(spec)
        rows = covering_array(fs, t, allowed=cs, scope=cs.scope, seed=0)
    names = [f.name for f in fs]
    return {tup for tup in covered(rows, names, t) if not _unobservable(spec, tup)}


def _unobservable(spec: SpecVersion, tup: Tuple) -> bool:
    got = dict(zip(*tup))
    return any(ex.unobservable(spec, name, got) for name in tup[0])


def held(spec: SpecVersion, fs: Sequence[Factor], cases: Iterable[Any], t: int) -> set[Tuple]:
    """The t-tuples the cases hold (values no factor value describes leave their tuples out)."""
    names = [f.name for f in fs]
    combos = list(itertools.combinations(names, min(t, len(names))))
    out: set[Tuple] = set()
    seen_rows: set[tuple] = set()
    for case in cases:
        got = ex.exercised(spec, fs, case)
        key = tuple((n, value_key(got[n])) for n in names)
        if key in seen_rows:  # variants hold their base case's values: count each assignment once
            continue
        seen_rows.add(key)
        for combo in combos:
            # a `values:` factor holds a set of classes: the case exercises each of them
            options = [sorted(got[n], key=str) if isinstance(got[n], frozenset) else [got[n]] for n in combo]
            for vals in itertools.product(*options):
                if all(v is not None for v in vals):
                    out.add((combo, vals))
    return out


def tuple_coverage(spec: SpecVersion, cases: Iterable[Any], t: int = 2,
                   fs: Sequence[Factor] | None = None,
                   rows: Sequence[Mapping[str, Any]] | None = None) -> TupleCoverage:
    """The fraction of allowed t-tuples of `spec`'s factors the cases exercise, and the missing
    ones. rows: see required()."""
    fs = factors(spec) if fs is None else list(fs)
    if not fs:  # nothing categorical to choose: nothing to cover
        return TupleCoverage(t, 0, 0, ())
    want = required(spec, fs, t, rows)
    got = held(spec, fs, cases, t)
    # membership by factor-value equality (True is not 1), so compare through a typed key
    have = {tuple_key(tup) for tup in got}
    missing = tuple(sorted((tup for tup in want if tuple_key(tup) not in have), key=repr))
    return TupleCoverage(t, len(want), len(want) - len(missing), missing)


def tuple_key(tup: Tuple) -> tuple:
    """A tuple as a hashable key for membership by factor-value equality (True is not 1)."""
    names, vals = tup
    return names, tuple(value_key(v) for v in vals)
