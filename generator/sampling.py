"""Drawing a fixed number of cases from a seed, reproducibly.

`generate` draws case k of a spec from its own pseudo-random source, `random.Random` seeded with
the string "<seed>:<spec id>:<k>" (string seeds go through SHA-512, so they are the same on every
machine and Python build). Nothing else is random: no example database, no time-dependent
choices, no shrinking. The same seed, spec file and Hypothesis version therefore give the same
cases, byte for byte. Draws that a strategy rejects (`assume`) and duplicates (same case id) are
skipped, so k counts attempts, not cases.

Hypothesis's own provider mixes in "local constants": literals it harvests from every local
module in `sys.modules` (test files included), so the same seed drew different cases in a test
process than in a plain one. `_SeededProvider` draws constants from Hypothesis's fixed global pool
only. No `settings` profile is read on this path (ConjectureData is driven directly: no example
budget, no derandomize, no database), so the loaded profile does not matter either.

Why not `@given` with `@seed`: Hypothesis's engine steers toward the simplest inputs and mutates
earlier ones (right for finding and shrinking bugs), so half the cases of a batch would be zeros
and tiny shapes. Drawing each case independently from the strategy gives an even spread over
element types, modes and edge values. This uses Hypothesis's ConjectureData directly (the
mechanism behind `@given`); `cases()` itself stays an ordinary strategy that shrinks.
"""
from __future__ import annotations

import dataclasses
import random

from hypothesis.control import BuildContext
from hypothesis.errors import StopTest, UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import choice_constraints_key, choice_permitted
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider

from opconform.generator import profiles, strategies
from opconform.model import Case, SpecVersion

_ATTEMPTS_PER_CASE = 30  # give up on a spec after this many rejected draws per case asked


class _SeededProvider(HypothesisProvider):
    """Hypothesis's provider without the process-dependent local constants (see the module text)."""

    _pools: dict = {}  # (choice type, constraints key) -> permitted global constants, in sorted order

    def _maybe_draw_constant(self, choice_type, constraints, *, p: float = 0.05):
        if self._random.random() > p:
            return None
        key = (choice_type, choice_constraints_key(choice_type, constraints))
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = tuple(c for c in GLOBAL_CONSTANTS.set_for_type(choice_type)
                                            if choice_permitted(c, constraints))
        return self._random.choice(pool) if pool else None


def draw_one(strategy, source: str):
    """One value of `strategy` from the random source named `source`, or None if rejected."""
    data = ConjectureData(random=random.Random(source), provider=_SeededProvider)
    try:
        with BuildContext(data, is_final=True, wrapped_test=None):
            return data.draw(strategy)
    except (UnsatisfiedAssumption, StopTest):
        return None


def generate(spec: SpecVersion, count: int, seed: int, *, profile: str | profiles.Profile = "smoke",
             expect: strategies.ExpectFn | None = None, kind: str = "any") -> list[Case]:
    """`count` distinct cases of `spec` (fewer only if the strategy keeps rejecting draws), the
    same ones for the same arguments; each carries `seed`."""
    strategy = strategies.cases(spec, kind=kind, profile=profile, expect=expect)
    found: dict[str, Case] = {}
    for k in range(count * _ATTEMPTS_PER_CASE):
        if len(found) >= count:
            break
        case = draw_one(strategy, f"{seed}:{spec.id}:{k}")
        if case is not None and case.id not in found:
            found[case.id] = dataclasses.replace(case, seed=seed)
    return list(found.values())


_HAS_STRATEGY: dict[str, bool] = {}


def has_strategy(spec: SpecVersion) -> bool:
    """True when the generator produces valid cases of this spec (checked once by drawing a few)."""
    if spec.id not in _HAS_STRATEGY:
        try:
            _HAS_STRATEGY[spec.id] = bool(generate(spec, 3, 0, kind="valid"))
        except (NotImplementedError, ValueError):
            _HAS_STRATEGY[spec.id] = False
    return _HAS_STRATEGY[spec.id]
