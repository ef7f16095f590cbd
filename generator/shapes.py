"""Ranks and shapes within a port's bounds and the profile's size caps."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

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
    # Every shape draws the same number of sides (the profile's rank cap, or more) and keeps the
    # first `rank`: when the shrinker lowers a rank drawn before, the later draws (values) stay
    # aligned with their choices, so a failing case keeps failing at the lower rank
    width = max(rank, profile.max_rank)
    full = _sides(width, max(min_side, 1), top).map(lambda s: s[:rank])
    if min_side == 0 and rank:
        # Hypothesis favours 0 for every side, which would make most tensors empty: empty ones
        # come from a branch of their own (about one in eight), non-empty ones first (they shrink so)
        empty = _sides(width, 0, top).map(lambda s: s[:rank]).filter(lambda s: 0 in s)
        full = st.one_of([full] * 7 + [empty])
    return full.filter(lambda s: int(np.prod(s, dtype=np.int64)) <= profile.max_elements)


def _sides(width: int, lo: int, hi: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(*[st.integers(lo, hi)] * width)


def fits(shape: tuple[int, ...], profile: Profile) -> bool:
    return int(np.prod(shape, dtype=np.int64)) <= profile.max_elements
