"""Run profiles: how many cases per spec version, and how big (the generator's size profile).

- smoke: seconds for a handful of specs; the project's own tests use it.
- ci: every spec, a few minutes per backend on 2 cores.
- certify: thorough, at most about an hour per backend on 2 cores.
Every spec version also runs every worked example its spec file stores.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunProfile:
    name: str
    valid: int  # generated valid cases per spec version
    invalid: int  # generated must-refuse cases per spec version (0 when the spec has no error relation)
    size: str  # generator size profile (opconform.generator.PROFILES)


PROFILES: dict[str, RunProfile] = {
    "smoke": RunProfile("smoke", valid=8, invalid=4, size="smoke"),
    "ci": RunProfile("ci", valid=40, invalid=12, size="ci"),
    "certify": RunProfile("certify", valid=300, invalid=80, size="certify"),
}


def get(name: str) -> RunProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None
