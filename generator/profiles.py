"""Size profiles: how big generated tensors get. Small by default, which helps shrinking."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    max_side: int  # largest dimension size
    max_rank: int  # cap on the rank of a port whose rank is unbounded
    max_elements: int  # cap on the element count of one tensor
    max_arity: int  # cap on the number of variadic inputs


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", max_side=3, max_rank=4, max_elements=64, max_arity=3),
    "ci": Profile("ci", max_side=4, max_rank=5, max_elements=256, max_arity=4),
    "certify": Profile("certify", max_side=6, max_rank=6, max_elements=2048, max_arity=5),
    "stress": Profile("stress", max_side=64, max_rank=6, max_elements=1 << 16, max_arity=8),
}


def get(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None
