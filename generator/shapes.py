"""Ranks and shapes within a port's bounds and the profile's size caps."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from opconform.generator.profiles import Profile
from opconform.model import Port


def rank_bounds(port: Port, profile: Profile) -> tuple[int, int]:
    """(lowest, highest) rank to draw: the port's bounds, the unbounded end capped by the profile."""
    hi = profile.max_rank if port.rank_max is None else min(port.rank_max, max(profile.max_rank, port.rank_min))
    return port.rank_min, max(port.rank_min, hi)


def ranks(port: Port, profile: Profile) -> st.SearchStrategy[int]:
    return _integers(*rank_bounds(port, profile))


@lru_cache(maxsize=None)
def _integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


def shapes(rank: int, profile: Profile, *, min_side: int = 0, max_side: int | None = None) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes of one rank; sides in [min_side, max_side] (0 = empty tensor), element count capped."""
    return _shapes(rank, profile, min_side, max_side)


@lru_cache(maxsize=None)
def _shapes(rank: int, profile: Profile, min_side: int, max_side: int | None) -> st.SearchStrategy[tuple[int, ...]]:
    top = max(profile.max_side if max_side is None else max_side, min_side, 1)
    full = hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=max(min_side, 1), max_side=top)
    if min_side == 0 and rank:
        # Hypothesis favours 0 for every side, which would make most tensors empty: empty ones
        # come from a branch of their own (about one in eight), non-empty ones first (they shrink so)
        empty = hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=0, max_side=top).filter(lambda s: 0 in s)
        full = st.one_of([full] * 7 + [empty])
    return full.filter(lambda s: int(np.prod(s, dtype=np.int64)) <= profile.max_elements)


def fits(shape: tuple[int, ...], profile: Profile) -> bool:
    return int(np.prod(shape, dtype=np.int64)) <= profile.max_elements
