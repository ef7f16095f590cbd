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
import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping, Sequence

import numpy as np
from hypothesis.control import BuildContext
from hypothesis.errors import StopTest, UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import choice_constraints_key, choice_permitted
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.internal.conjecture.providers import COLLECTION_DEFAULT_MAX_SIZE, GLOBAL_CONSTANTS, HypothesisProvider

from opconform.generator import profiles, strategies
from opconform.generator.covering import covering_array
from opconform.generator.factors import Factor, constraints, factors
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

    def draw_bytes(self, min_size: int = 0, max_size: int = COLLECTION_DEFAULT_MAX_SIZE) -> bytes:
        """Hypothesis's bytes, the same ones, at once: a fixed-size string (every array's values are
        one, values.codes) is drawn by its provider one byte at a time through `many`, each byte the
        top 8 bits of one 32-bit Mersenne Twister word (randbytes(1) is getrandbits(8)); getrandbits(32 * n)
        gives those n words in order, least significant first. That loop was a fifth of onnx::Attention-23's
        profiled generation (2.1 million iterations for 49,000 arrays; cProfile inflates it: the wall
        time saved is nearer a sixth, benchmarks/bench_generation.py)."""
        if min_size != max_size or min_size == 0:
            return super().draw_bytes(min_size, max_size)
        constant = self._maybe_draw_constant("bytes", {"min_size": min_size, "max_size": max_size})
        if constant is not None:
            return constant
        words = self._random.getrandbits(32 * min_size).to_bytes(4 * min_size, "little")
        return (np.frombuffer(words, dtype="<u4") >> 24).astype(np.uint8).tobytes()


def draw_one(strategy, source: str):
    """One value of `strategy` from the random source named `source`, or None if rejected."""
    data = ConjectureData(random=random.Random(source), provider=_SeededProvider)
    try:
        with BuildContext(data, is_final=True, wrapped_test=None):
            return data.draw(strategy)
    except (UnsatisfiedAssumption, StopTest):
        return None


def generate(spec: SpecVersion, count: int, seed: int, *, profile: str | profiles.Profile = "smoke",
             expect: strategies.ExpectFn | None = None, kind: str = "any",
             keep: Callable[[Case], bool] | None = None) -> list[Case]:
    """`count` distinct cases of `spec` (fewer only if the strategy keeps rejecting draws), the
    same ones for the same arguments; each carries `seed`. keep: cases it refuses are skipped like
    rejected draws (the others are the ones drawn without it, in the same order). Must-refuse
    cases (kind="invalid") take the error relations in turn, attempt k breaking relation k mod n,
    so that each relation gets its share of a small count rather than what chance leaves it."""
    targets = strategies.error_relations(spec) if kind == "invalid" else []
    turns = [strategies.cases(spec, kind=kind, profile=profile, expect=expect, relations=[r]) for r in targets] \
        or [strategies.cases(spec, kind=kind, profile=profile, expect=expect)]
    found: dict[str, Case] = {}
    tries, hit = [0] * len(turns), [False] * len(turns)
    for k in range(count * _ATTEMPTS_PER_CASE):
        # done when there are enough cases and every relation has one or has had its tries
        if len(found) >= count and all(h or n >= _ATTEMPTS_PER_CASE for h, n in zip(hit, tries)):
            break
        turn = k % len(turns)
        if len(found) >= count and hit[turn]:
            continue  # enough cases: only relations still without one draw
        tries[turn] += 1
        case = draw_one(turns[turn], f"{seed}:{spec.id}:{k}")
        if case is not None and keep is not None and not keep(case):
            continue
        if case is not None and case.id not in found:
            found[case.id] = dataclasses.replace(case, seed=seed)
            hit[turn] = True
    return list(found.values())


_ATTEMPTS_PER_ROW = 25  # tries before a covering-array row is declared not drawable
# tries before a row whose every try failed for a reason that sank a whole earlier row is given
# up (a hook that cannot hold some pin, e.g. onnx::Split-13 always gives `split`): rows sharing
# the pin would each cost all their tries otherwise
_TRIES_ON_A_KNOWN_DEAD_END = 4


@dataclass
class RowDraws:
    """What drawing one case per covering-array row gave: `cases` (row index, case) for the rows
    drawn, in row order (a row whose case repeats an earlier one's id adds no case: that case
    holds the row too); `infeasible` (row index, reason) for the rows no try held."""

    cases: list[tuple[int, Case]] = field(default_factory=list)
    infeasible: list[tuple[int, str]] = field(default_factory=list)
    tries: int = 0  # draws made in all (rejected ones included): what the rows cost


def spec_rows(spec: SpecVersion, t: int, seed: int | str, exclude: Collection[tuple[str, int]] = (),
              given: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """The t-wise covering-array rows of a spec version's factors under its constraints, fixed by
    the seed and the spec id (the same rows on every machine). exclude: (factor name, index in
    its values) pairs no row may hold, e.g. values a backend does not implement; a factor keeps at
    least one value (excluding every value of a factor is refused). given: rows the array starts
    from (they come first; see covering_array)."""
    cs = constraints(spec)
    fs = restricted(factors(spec), exclude)
    rows = covering_array(fs, t, allowed=cs, scope=cs.scope, seed=f"{seed}:{spec.id}", given=given)
    return rows + observable_repairs(spec, fs, cs, rows, t)


def observable_repairs(spec: SpecVersion, fs: Sequence[Factor], allowed: Callable[[Mapping[str, Any]], bool],
                       rows: Sequence[Mapping[str, Any]], t: int) -> list[dict[str, Any]]:
    """Rows for the tuples `rows` hold only where they cannot be seen: the element type of an
    optional input (onnx::Pad's Tind, of `axes`) is held in name only by a row that leaves the
    input out, so a tuple with that type needs a row where the input is given. Each such row
    holds the tuple and gives those inputs, every other factor at its preferred value."""
    from opconform.generator.exercised import unobservable
    from opconform.generator.row_search import complete, preference

    names = [f.name for f in fs]
    combos = list(itertools.combinations(names, min(t, len(names))))
    if not any(f.kind == "type" for f in fs) or not any(f.kind == "presence" for f in fs):
        return []  # every type held is seen

    def seen(row: Mapping[str, Any]) -> set:
        hidden = {n for n in names if unobservable(spec, n, row)}
        return {(c, tuple(row[n] for n in c)) for c in combos if not hidden & set(c)}

    held: set = set()
    for row in rows:
        held |= seen(row)
    wanted = [(c, vals) for c in combos for vals in dict.fromkeys(tuple(r[n] for n in c) for r in rows)
              if (c, vals) not in held and not any(unobservable(spec, n, dict(zip(c, vals))) for n in c)]
    order = [preference(f) for f in fs]
    out: list[dict[str, Any]] = []
    for c, vals in wanted:
        if (c, vals) in held:
            continue  # a repair row made for an earlier tuple holds it
        pins = {n: fs[names.index(n)].values.index(v) for n, v in zip(c, vals)}
        needed = [f for f in fs  # the inputs of the tuple's types are given
                  if f.kind == "presence" and any(n.startswith("type:") and unobservable(spec, n, {f.name: False}) for n in c)]
        if any(True not in f.values for f in needed):
            continue  # an input excluded from being given (a backend that implements nothing with it)
        for f in needed:
            pins.setdefault(f.name, f.values.index(True))
        found = complete(fs, allowed, pins, order)
        if found is not None:
            row = {f.name: f.values[i] for f, i in zip(fs, found)}
            out.append(row)
            held |= seen(row)
    return out


def restricted(fs: Sequence[Factor], exclude: Collection[tuple[str, int]]) -> list[Factor]:
    """The factors without the excluded (factor name, value index) pairs. Indices, not values:
    they survive pickling and JSON, where a Class value would lose its identity."""
    out = []
    for f in fs:
        gone = {i for name, i in exclude if name == f.name}
        if not gone:
            out.append(f)
            continue
        kept = tuple(v for i, v in enumerate(f.values) if i not in gone)
        if not kept:
            raise ValueError(f"every value of factor {f.name} excluded; expected at least one left")
        out.append(dataclasses.replace(f, values=kept))
    return out


def generate_rows(spec: SpecVersion, rows: Sequence[Mapping[str, Any]], seed: int, *,
                  profile: str | profiles.Profile = "smoke", expect: strategies.ExpectFn | None = None,
                  attempts: int = _ATTEMPTS_PER_ROW) -> RowDraws:
    """One valid case per row, each holding its row's pins (see strategies.drafts). Try k of row i
    draws from the source "<seed>:<spec id>:row<i>:<k>", so the same seed gives the same cases on
    any machine. A row with no case after `attempts` tries is reported with the most frequent
    reason its tries were rejected (a relation that never held, a pin a hook did not keep)."""
    out = RowDraws()
    seen: set[str] = set()
    dead_ends: set[str] = set()
    pinned = strategies.row_cases(spec, profile, expect)
    for i, row in enumerate(rows):
        log: list[str] = []
        case, tries = draw_row(pinned(row, log), f"{seed}:{spec.id}:row{i}", log, dead_ends, attempts)
        out.tries += tries
        if case is None:
            out.infeasible.append((i, _most_common(log) or "every try was rejected inside a step"))
        elif case.id not in seen:
            seen.add(case.id)
            out.cases.append((i, dataclasses.replace(case, seed=seed)))
    return out


def draw_row(strategy, source: str, log: list[str], dead_ends: set[str],
             attempts: int = _ATTEMPTS_PER_ROW) -> tuple[Case | None, int]:
    """(case, tries): the first case `strategy` (a row's pinned strategy, writing why a try was
    rejected to `log`) gives within `attempts` tries, try k drawn from "<source>:<k>". A row that
    gets none adds its reasons to `dead_ends`; a later row whose first tries all fail for reasons
    found there is given up early. A drawing error ends the row with that error in the log."""
    tries = 0
    while tries < attempts:
        if tries >= _TRIES_ON_A_KNOWN_DEAD_END and log and all(r in dead_ends for r in log):
            break  # every try so far failed the way a whole earlier row did: this one will too
        tries += 1
        try:
            case = draw_one(strategy, f"{source}:{tries - 1}")
        except Exception as e:  # noqa: BLE001 - e.g. the expectation fails on this row: report the row, keep the others
            log[:] = [f"drawing failed: {type(e).__name__}: {e}".splitlines()[0][:200]]
            return None, tries
        if case is not None:
            return case, tries
    dead_ends.update(log)
    return None, tries


def _most_common(reasons: list[str]) -> str | None:
    if not reasons:
        return None
    counts: dict[str, int] = {}
    for r in reasons:
        counts[r] = counts.get(r, 0) + 1
    best = max(counts.values())
    return next(r for r in reasons if counts[r] == best)  # first seen among the most frequent: stable


_HAS_STRATEGY: dict[str, bool] = {}


def has_strategy(spec: SpecVersion) -> bool:
    """True when the generator produces valid cases of this spec (checked once by drawing a few)."""
    if spec.id not in _HAS_STRATEGY:
        try:
            _HAS_STRATEGY[spec.id] = bool(generate(spec, 3, 0, kind="valid"))
        except (NotImplementedError, ValueError):
            _HAS_STRATEGY[spec.id] = False
    return _HAS_STRATEGY[spec.id]


# ------------------------------------------------------------------ measuring the solver
def rejection_rate(spec: SpecVersion, profile: str = "ci", n: int = 100, *, t: int = 0, seed: str = "rejection",
                   log: list[str] | None = None) -> float:
    """The share of valid drafts (steps, solver, value repair) still rejected: n drafts of the
    profile drawn one by one (draw_one from the source "<seed>:<spec id>:<k>", the same
    on every machine), each once -- not through cases(kind="valid"), whose `map` draws a rejected
    draft again up to three times and so hides most rejections. t: 0 draws freely; 2 pins draft
    k to row k of the t-wise covering rows in turn (what a run profile with rows draws, where a
    pin not held rejects too). log: where the reason for each rejection is appended."""
    valid = strategies._row_drafts(spec, profiles.get(profile))
    rows = spec_rows(spec, t, seed) if t else [{}]
    rejected = sum(draw_one(valid(dict(rows[k % len(rows)]), log), f"{seed}:{spec.id}:{k}") is None
                   for k in range(n))
    return rejected / n
