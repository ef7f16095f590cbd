"""Run profiles: how many cases per spec version, and how big (the generator's size profile).

- smoke: seconds for a handful of specs; the project's own tests use it.
- ci: every spec, a few minutes per backend on 2 cores.
- certify: thorough, at most about an hour per backend on 2 cores.
- stress: no drawn cases; each spec version's stress cases (its spec's `stress:` block) timed on a
  ladder of sizes, 1e2 .. 1e7 elements, for the `slow` verdict (suites/stress.py).
Every spec version also runs every worked example its spec file stores. Each generated case
brings `variants` more that share its model signature (see generator/variants.py), so that a built
model serves many cases.

Covering (`t`): the valid cases first hold every row of a t-wise covering array of the spec
version's factors (element types, attribute values and classes, optional inputs, outputs asked;
generator/factors.py), one case per row, so every pair (ci) or triple (certify) of factor values
is exercised; then free draws fill up to `valid`. A spec with more rows than `valid` gets more
valid cases and fewer variants each (`variants_per_case`), so its valid budget,
valid * (1 + variants) cases, stays about what it was; variants never go below 0.

Probing (`probe`, ci and certify): before drawing, the run asks the backend which factor values
it implements (one small case per value, suites/probe.py) and the rows leave out the ones it does
not; smoke skips it to stay fast, and ci-norows is the baseline without rows.
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
    t: int = 0  # covering strength of the valid cases' rows (0: no rows, every valid case drawn freely)
    probe: bool = False  # ask the backend first which factor values it implements (suites/probe.py); rows only
    ladder: bool = False  # no drawn cases: stress ladders of the spec's worst cases, timed (suites/stress.py)

    def variants_per_case(self, valid_cases: int, planned: int | None = None) -> int:
        """Value variants per case when a spec has `valid_cases` of them: `variants` up to
        `planned` cases (default `valid`), then fewer, so the spec's cases stay near
        planned * (1 + variants). Must-refuse cases pass planned=invalid: a spec with more error
        relations than `invalid` gets one case per relation and fewer variants each."""
        planned = self.valid if planned is None else planned
        if valid_cases <= planned:
            return self.variants
        return max(0, min(self.variants, planned * (1 + self.variants) // valid_cases - 1))


PROFILES: dict[str, RunProfile] = {
    "smoke": RunProfile("smoke", valid=6, invalid=3, variants=2, size="smoke"),
    "ci": RunProfile("ci", valid=10, invalid=6, variants=15, size="ci", t=2, probe=True),
    "certify": RunProfile("certify", valid=40, invalid=20, variants=10, size="certify", t=3, probe=True),
    # ci as it was before covering rows (every valid case drawn freely): the baseline that
    # benchmarks/bench_coverage.py and a wall-time comparison run against
    "ci-norows": RunProfile("ci-norows", valid=10, invalid=6, variants=15, size="ci", t=0),
    # speed and memory: each spec version's stress cases on a ladder of sizes, 1e2 .. 1e7 elements
    "stress": RunProfile("stress", valid=0, invalid=0, variants=0, size="stress", ladder=True),
}


def get(name: str | RunProfile) -> RunProfile:
    if isinstance(name, RunProfile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None
