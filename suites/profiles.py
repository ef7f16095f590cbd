"""Run profiles: how many cases per spec version, and how big (the generator's size profile).

- smoke: seconds for a handful of specs; the project's own tests use it.
- ci: every spec, a few minutes per backend on 2 cores.
- certify: thorough, at most about an hour per backend on 2 cores.
Every spec version also runs every worked example its spec file stores. Each generated case
brings `variants` more that share its model signature (see suites/variants.py), so that a built
model serves many cases.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunProfile:
    name: str
    valid: int  # generated valid cases per spec version
    invalid: int  # generated must-refuse cases per spec version (0 when the spec has no error relation)
    variants: int  # value variants per generated case (same signature; duplicates dropped)
    size: str  # generator size profile (opconform.generator.PROFILES)


PROFILES: dict[str, RunProfile] = {
    "smoke": RunProfile("smoke", valid=6, invalid=3, variants=2, size="smoke"),
    "ci": RunProfile("ci", valid=10, invalid=6, variants=15, size="ci"),
    "certify": RunProfile("certify", valid=40, invalid=20, variants=10, size="certify"),
}


def get(name: str) -> RunProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None
