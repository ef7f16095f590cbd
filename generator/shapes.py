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
    lo = max(min_side, 1)
    # Every shape is one choice of the same size (the profile's rank cap or more, and two codes
    # for an empty tensor): when the shrinker lowers a rank drawn before, the later draws (values)
    # stay aligned with their choices, so a failing case keeps failing at the lower rank. One
    # choice, not a draw per side: a Hypothesis draw costs tens of microseconds, and shapes are
    # drawn for every input of every case.
    width = max(rank, profile.max_rank)
    empty_ok = min_side == 0 and rank > 0

    def build(raw: bytes) -> tuple[int, ...]:
        c = np.frombuffer(raw, dtype="<u2")
        sides = [lo + int(v) % (top - lo + 1) for v in c[:rank]]
        if empty_ok and c[width] % 8 == 7:  # about one in eight is empty (all zero bytes: never, so they shrink non-empty)
            sides[int(c[width + 1]) % rank] = 0
            return tuple(sides)
        while int(np.prod(sides, dtype=np.int64)) > profile.max_elements and max(sides) > lo:
            sides[sides.index(max(sides))] -= 1  # past the element cap: the largest side gives way
        return tuple(sides)

    return st.binary(min_size=2 * (width + 2), max_size=2 * (width + 2)).map(build).filter(
        lambda s: int(np.prod(s, dtype=np.int64)) <= profile.max_elements)


def fits(shape: tuple[int, ...], profile: Profile) -> bool:
    return int(np.prod(shape, dtype=np.int64)) <= profile.max_elements
