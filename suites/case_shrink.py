"""Shrinking one failing case by reducing it, where drawing new cases found none that fails alike.

Some failures need one particular input that a fresh draw seldom makes again (a crash on one
index pattern, a wrong count on one mix of duplicates): the search over the spec's strategy finds
nothing, yet the group's own case fails every time. This takes that case and tries smaller ones
made from it, greedily, in the order Hypothesis shrinks in (fewer elements first, then simpler
values):

    - each axis of each input cut to its first element, its first half, all but its last;
    - a whole input's values set to zero, then (for inputs of at most SMALL elements) one element
      at a time.

A reduction is kept when the oracle still gives the case the group's kind (a valid case stays
valid, a must-refuse case still breaks the group's relation) and the backend fails it alike. The
result is minimal under these reductions: none of them, applied once more, still fails alike.

    shrunk, tried, exhausted = reduce_case(spec, case, fails_alike, kind="valid", relation=None, budget=20.0)
"""
from __future__ import annotations

import dataclasses
from time import monotonic
from typing import Callable, Iterator

import numpy as np

from opconform.model import Case, SpecVersion

SMALL = 16  # inputs up to this many elements get their values zeroed one element at a time


def _cuts(x: np.ndarray) -> Iterator[np.ndarray]:
    for axis in range(x.ndim):
        n = x.shape[axis]
        for keep in sorted({1, n // 2, n - 1}):
            if 0 < keep < n:
                yield np.take(x, np.arange(keep), axis=axis)


def _zeroed(x: np.ndarray) -> Iterator[np.ndarray]:
    if x.dtype.kind not in "biufc" or x.size == 0:
        return
    zero = np.zeros_like(x)
    if np.array_equal(x, zero):
        return
    yield zero
    if x.size <= SMALL:
        for j in np.flatnonzero(x.reshape(-1) != 0):
            y = x.copy().reshape(-1)
            y[j] = 0
            yield y.reshape(x.shape)


def reductions(case: Case) -> Iterator[tuple[np.ndarray | None, ...]]:
    """Input tuples one reduction smaller than the case's, fewer elements first."""
    inputs = case.inputs
    for make in (_cuts, _zeroed):
        for i, x in enumerate(inputs):
            if isinstance(x, np.ndarray):
                for y in make(x):
                    yield inputs[:i] + (y,) + inputs[i + 1:]


def _same_kind(case: Case, kind: str, relation: str | None) -> bool:
    if kind == "valid":
        return case.expected.kind == "outputs"
    return case.expected.kind != "outputs" and (relation is None or case.expected.relation == relation)


def reduce_case(spec: SpecVersion, case: Case, fails_alike: Callable[[Case], bool], *, kind: str,
                relation: str | None, budget: float) -> tuple[Case, int, bool]:
    """The smallest case reached from `case` by reductions that keep failing alike, how many
    candidates the backend ran, and whether every reduction of that case was tried (it is then
    minimal under them; otherwise the budget ran out). `case` itself is assumed to fail alike."""
    import warnings

    from opconform import oracle

    stop = monotonic() + budget
    tried = 0
    while True:
        for inputs in reductions(case):
            if monotonic() > stop:
                return case, tried, False
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # NaN and overflow are drawn on purpose
                    expected = oracle.expectation(spec, inputs, case.attributes)
            except Exception:  # noqa: BLE001 - inputs the oracle cannot take are no candidate
                continue
            candidate = dataclasses.replace(case, inputs=inputs, expected=expected)
            if not _same_kind(candidate, kind, relation):
                continue
            tried += 1
            if fails_alike(candidate):
                case = candidate
                break
        else:
            return case, tried, True
