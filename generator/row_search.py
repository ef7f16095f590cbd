"""Completing a partial row: the first allowed row that holds some pinned values, every other
factor at its preferred value (the one backends implement most often, or the default).

    >>> row = complete(fs, constraints(spec), {"type:T": 3}, [preference(f) for f in fs])

Probe rows (generator/probe_rows.py) are made this way, and so are the rows that make an element
type of an optional input observable (generator/sampling.py: a covering row that leaves the input
out holds its type in name only).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from opconform.generator.factors import OMITTED, Factor

Row = tuple[int, ...]  # one value index per factor, in factor order
_SEARCH_LIMIT = 20_000  # assignments tried completing one row
# element types backends implement most often first; the rest keep the spec's order
_TYPE_ORDER = ("float32", "int64", "int32", "float64", "float16", "bool", "int8", "uint8", "string")


def preference(f: Factor) -> list[int]:
    """A factor's value indices, the value most backends implement (or the default) first."""
    n = len(f.values)
    if f.kind == "type":
        rank = {t: k for k, t in enumerate(_TYPE_ORDER)}
        return sorted(range(n), key=lambda i: (rank.get(f.values[i], len(rank)), i))
    if f.kind == "attribute":  # left out (its default) first
        return sorted(range(n), key=lambda i: (f.values[i] is not OMITTED, i))
    if f.kind == "presence":  # absent first: an optional input left out is the plainest node
        return sorted(range(n), key=lambda i: (f.values[i] is not False, i))
    return list(range(n))  # outputs: every output asked comes first


def complete(fs: Sequence[Factor], allowed: Callable[[Mapping[str, Any]], bool], pins: Mapping[str, int],
             order: Sequence[Sequence[int]]) -> Row | None:
    """The first row (depth first, each factor in preference order) that holds the pins and that
    the constraints allow; None when there is none (or the search passes its limit)."""
    budget = [_SEARCH_LIMIT]
    chosen: dict[str, Any] = {}
    picked: list[int] = []

    def go(k: int) -> bool:
        if k == len(fs):
            return True
        f = fs[k]
        for i in ([pins[f.name]] if f.name in pins else order[k]):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            chosen[f.name] = f.values[i]
            picked.append(i)
            if allowed(chosen) and go(k + 1):
                return True
            picked.pop()
            del chosen[f.name]
        return False

    return tuple(picked) if go(0) else None
