"""Probe rows: one row per factor value, every other factor at the value backends implement most.

    >>> from opconform import specs
    >>> from opconform.generator import probe_rows
    >>> spec = specs.load("onnx::Unique-11")
    >>> asked = probe_rows.rows(spec)          # [(factor name, value index, row), ...]
    >>> drawn = probe_rows.draw(spec, expect)  # {row: Case or None}, the same on every machine

A backend is asked what it implements (suites/probe.py) with one small case per spec version and
factor value: a row with that value pinned and every other factor at its *preferred* value, the
one backends implement most often or the default (float32 before other types, an attribute left
out before set, an optional input absent, every output asked), as far as the constraints allow.
The row of each factor's preferred value is the same for every factor (the baseline), so a spec
version with F factor values has about F - (factors - 1) distinct rows.

These rows are valid rows like any covering-array row, and their cases are drawn the same way
(strategies.row_cases, smoke sizes). A run's covering array starts from them (`seeds`): the
probe's cases are the first cases of its rows, the backend's answers to them are already results,
and only the tuples they leave uncovered get rows of their own. Everything is seeded by the spec
id and the row, never by the run's seed, time or machine: a run that probed and one whose answers
came from the cache (which draws the rows here again) plan the same cases.
"""
from __future__ import annotations

from typing import Any, Callable, Collection, Mapping, Sequence

from opconform.generator import strategies
from opconform.generator.factors import Factor, constraints, factors
from opconform.generator.row_search import complete, preference
from opconform.generator.sampling import draw_row
from opconform.model import Case, SpecVersion

Row = tuple[int, ...]  # one value index per factor, in factor order
ATTEMPTS = 25  # draws per probe row before it is given up (no case: the value is not probed)
SIZE = "smoke"  # probe cases are small: the answer is about the factor values, not the sizes


def rows(spec: SpecVersion) -> list[tuple[str, int, Row]]:
    """(factor name, value index, row) for every factor value some allowed row holds."""
    fs, cs = factors(spec), constraints(spec)
    order = [preference(f) for f in fs]
    out = []
    for f in fs:
        for i in range(len(f.values)):
            row = complete(fs, cs, {f.name: i}, order)
            if row is not None:
                out.append((f.name, i, row))
    return out


def assignment(fs: Sequence[Factor], row: Row) -> dict[str, Any]:
    return {f.name: f.values[i] for f, i in zip(fs, row)}


def draw(spec: SpecVersion, expect: strategies.ExpectFn | None, wanted: Sequence[Row] | None = None) -> dict[Row, Case | None]:
    """A case for each row (None: no try held it): `wanted`, or every distinct row of `rows`,
    in order (the rows share what they learn of dead ends, as in generation)."""
    fs = factors(spec)
    if wanted is None:
        wanted = list(dict.fromkeys(r for _, _, r in rows(spec)))
    strategy = strategies.row_cases(spec, SIZE, expect)
    dead_ends: set[str] = set()
    out: dict[Row, Case | None] = {}
    for row in wanted:
        log: list[str] = []
        out[row], _ = draw_row(strategy(assignment(fs, row), log), f"probe:{spec.id}:{'.'.join(map(str, row))}", log,
                               dead_ends, attempts=ATTEMPTS)
    return out


def seeds(spec: SpecVersion, drawn: Mapping[Row, Case | None],
          exclude: Collection[tuple[str, int]]) -> list[tuple[dict[str, Any], Case]]:
    """The drawn probe rows that hold no excluded (factor name, value index) and have a case, as
    (factor name -> value, case): the first rows of a run's covering array. The cases stay as
    drawn (no run seed: they do not depend on it), so a backend's answer to one is its result."""
    fs = factors(spec)
    banned = [(k, i) for k, f in enumerate(fs) for name, i in exclude if name == f.name]
    return [(assignment(fs, row), case) for row, case in drawn.items()
            if case is not None and not any(row[k] == i for k, i in banned)]
