"""Shared pieces of the shape/layout hooks (Reshape, Slice, Pad, Split...): integer vectors in
the element type their port was given, shapes with a given element count, distinct axes."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import pins
from opconform.generator.draft import Draft


def set_ints(d: Draft, name: str, values: Sequence[int]) -> None:
    """Input `name` as a 1-D tensor of `values` in the element type drawn for its port."""
    d.present[d.port_index(name)] = True
    d.set_input(name, np.asarray(list(values), dtype=np.int64).astype(dtypes.numpy_dtype(d.dtypes[d.port_index(name)])))


def maybe_ints(draw, d: Draft, name: str, values: Sequence[int]) -> None:
    """An optional input: absent, or `values` (a covering row's presence pin decides, if any)."""
    if pins.present(draw, d, d.port(name)):
        set_ints(d, name, values)
    else:
        d.present[d.port_index(name)] = False
        d.set_input(name, None)


def distinct_axes(draw, rank: int, *, min_size: int = 0, max_size: int | None = None) -> list[int]:
    """Distinct axes of a rank-`rank` tensor, each written positive or negative at random."""
    if rank == 0:
        return []
    picked = draw(st.lists(st.integers(0, rank - 1), unique=True, min_size=min(min_size, rank),
                           max_size=rank if max_size is None else min(max_size, rank)))
    return [a - rank if draw(st.booleans()) else a for a in picked]


def shape_with_count(draw, n: int, max_rank: int = 4) -> list[int]:
    """A shape holding exactly n elements: n's prime factors spread over a drawn rank, 1s mixed in;
    for n == 0 one side is 0."""
    if n == 0:
        rank = draw(st.integers(1, max_rank))
        dims = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
        dims[draw(st.integers(0, rank - 1))] = 0
        return dims
    factors = _prime_factors(n)
    rank = draw(st.integers(1 if factors else 0, max_rank))
    dims = [1] * rank
    for f in factors:
        dims[draw(st.integers(0, rank - 1))] *= f
    return dims


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])

