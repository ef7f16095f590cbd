"""Drawing a fixed number of cases from a seed, reproducibly.

`generate` runs the case strategy under Hypothesis with `@seed(seed)`, no example database, the
generate phase only (no shrinking), and no time-based deadline or health checks, so what it draws
depends on the seed, the spec and the Hypothesis version alone: the same seed gives the same
cases, byte for byte, on any machine (pin Hypothesis to keep it so across installs).
Cases are deduplicated by id; Hypothesis is asked again with the next seed if the first pass
came back short (tiny case spaces).
"""
from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings
from hypothesis.errors import Unsatisfiable

from opconform.generator import profiles, strategies
from opconform.model import Case, SpecVersion

_PASSES = 4  # extra passes (seed+1, seed+2, ...) before accepting fewer cases than asked


def generate(spec: SpecVersion, count: int, seed: int, *, profile: str | profiles.Profile = "smoke",
             expect: strategies.ExpectFn | None = None, kind: str = "any") -> list[Case]:
    """`count` distinct cases of `spec`, the same ones for the same arguments; each carries `seed`."""
    found: dict[str, Case] = {}
    for attempt in range(_PASSES + 1):
        if len(found) >= count:
            break
        for case in _draw(spec, count - len(found), seed + attempt, profile, kind, expect):
            found.setdefault(case.id, case)
    return [dataclasses.replace(c, seed=seed) for c in list(found.values())[:count]]


def _draw(spec: SpecVersion, count: int, seed: int, profile, kind: str, expect) -> list[Case]:
    drawn: list[Case] = []
    strategy = strategies.cases(spec, kind=kind, profile=profile, expect=expect)

    @hypothesis_seed(seed)
    @settings(database=None, max_examples=count, phases=[Phase.generate], deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False)
    @given(strategy)
    def collect(case: Case) -> None:
        drawn.append(case)

    try:
        collect()
    except Unsatisfiable:
        pass  # the strategy could not produce (more) cases; the caller sees fewer than asked
    return drawn


_HAS_STRATEGY: dict[str, bool] = {}


def has_strategy(spec: SpecVersion) -> bool:
    """True when the generator produces valid cases of this spec (checked once by drawing a few)."""
    if spec.id not in _HAS_STRATEGY:
        try:
            _HAS_STRATEGY[spec.id] = bool(generate(spec, 3, 0, kind="valid"))
        except (NotImplementedError, ValueError):
            _HAS_STRATEGY[spec.id] = False
    return _HAS_STRATEGY[spec.id]
