"""Factor coverage per backend: how many of a spec version's allowed pairs (or triples) of factor
values the cases a backend answered really hold, and which factor values the backend said it does
not support.

    >>> from opconform.reports.factor_coverage import coverage, unsupported_values
    >>> cov = coverage(rs)[("onnxruntime", "onnx::Unique-11")]
    >>> cov.t, cov.exercised, cov.total, cov.missing[:3]

Strength: triples for a run whose profile covers triples (certify), pairs otherwise (ci, and
profiles without rows, so that they can be compared with ci); read from run.json's "profile".
Counted: the valid cases (not the must-refuse ones: they break a relation on purpose) whose
verdict is not "unsupported", since only those were exercised on the backend. What a case holds
is read from the case recorded in results.jsonl, by generator/exercised.py through
generator/tuple_coverage.py, exactly as the plan counts its own cases.

Unsupported factor values come from run.json's "unsupported_factors"
({spec_id: [{"factor", "value", "message"}]}, written by the run's support probe), once each.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from opconform import dtypes, specs, tensors
from opconform.generator import tuple_coverage as tc
from opconform.generator.exercised import same
from opconform.generator.factors import Class, Factor, factors
from opconform.model import Result, SpecVersion
from opconform.reports.resultset import ResultSet

MAX_MISSING = 200  # missing tuples listed per detail page; the count says how many there are in all


@dataclass(frozen=True)
class UnsupportedValue:
    """One factor value a backend said it does not implement for one spec version."""

    factor: str  # "type:T", "attr:sorted", ...
    value: Any  # as run.json holds it (JSON)
    message: str = ""

    @property
    def value_text(self) -> str:
        return self.value if isinstance(self.value, str) else json.dumps(self.value)

    def matches(self, factor: str, value: Any) -> bool:
        """Does this unsupported value stand for `value` of `factor` (a factor value of a tuple)?"""
        if factor != self.factor:
            return False
        if isinstance(value, Class):  # JSON cannot hold a class: run.json names it
            return self.value in (value.name, repr(value))
        if isinstance(value, tuple) and isinstance(self.value, list):
            return tuple(self.value) == value
        return same(value, self.value)


@dataclass
class PairCoverage:
    """Factor tuples of one spec version exercised on one backend."""

    t: int  # 2: pairs, 3: triples
    total: int = 0  # allowed tuples a case can hold
    exercised: int = 0  # of those, held by a valid case the backend answered
    missing: list[str] = field(default_factory=list)  # the first MAX_MISSING others, as text
    missing_unsupported: int = 0  # missing tuples that hold a factor value the backend does not support
    cases: int = 0  # valid cases the backend answered
    note: str = ""  # why nothing could be counted (spec not in the library, ...)

    @property
    def what(self) -> str:
        return "pairs" if self.t == 2 else "triples" if self.t == 3 else f"{self.t}-tuples"

    @property
    def fraction(self) -> float | None:
        return None if self.note else 1.0 if self.total == 0 else self.exercised / self.total

    @property
    def supported_fraction(self) -> float | None:
        """Exercised of the tuples the backend could run (those holding no unsupported value)."""
        reachable = self.total - self.missing_unsupported
        return None if self.note else 1.0 if reachable <= 0 else self.exercised / reachable

    @property
    def missing_total(self) -> int:
        return self.total - self.exercised


# ------------------------------------------------------------------ run.json
def strength(run: Mapping[str, Any]) -> int:
    """2 (pairs) or 3 (triples): the covering strength of the run's profile, at least pairs."""
    from opconform.suites import profiles

    try:
        return max(2, profiles.get(str(run.get("profile") or "")).t)
    except ValueError:  # a profile this build does not know: pairs
        return 2


def _run_by_backend(rs: ResultSet) -> dict[str, list[Mapping[str, Any]]]:
    """Backend name, as results name it, -> the run.json of each directory holding its results."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for d in rs.dirs:
        name = d.results[0].backend if d.results else d.run.get("backend")
        if name:
            out.setdefault(str(name), []).append(d.run)
    return out


def of(rs: ResultSet) -> dict[tuple[str, str], "PairCoverage"]:
    """coverage(rs), counted once per set: read by the first view and every detail page."""
    return rs.derived(coverage)


def unsupported_of(rs: ResultSet) -> dict[tuple[str, str], list[UnsupportedValue]]:
    """unsupported_values(rs), once per set."""
    return rs.derived(unsupported_values)


def strengths(rs: ResultSet) -> dict[str, int]:
    return {b: max(strength(r) for r in runs) for b, runs in _run_by_backend(rs).items()}


def unsupported_values(rs: ResultSet) -> dict[tuple[str, str], list[UnsupportedValue]]:
    """(backend, spec_id) -> the factor values the backend does not support, once each."""
    out: dict[tuple[str, str], list[UnsupportedValue]] = {}
    for backend, runs in _run_by_backend(rs).items():
        for run in runs:
            listed = run.get("unsupported_factors") or {}
            if not isinstance(listed, Mapping):
                continue
            for spec_id, items in listed.items():
                have = out.setdefault((backend, str(spec_id)), [])
                for item in items or ():
                    if not isinstance(item, Mapping) or "factor" not in item:
                        continue
                    u = UnsupportedValue(str(item["factor"]), item.get("value"), str(item.get("message") or ""))
                    if not any(u.factor == h.factor and u.value == h.value for h in have):  # shards repeat them
                        have.append(u)
    return {k: v for k, v in out.items() if v}


# ------------------------------------------------------------------ cases
@dataclass(frozen=True)
class _Held:
    """What generator/exercised.py reads of a case, from its JSON without decoding its tensors:
    each input is an empty array of its element type (only the type is read)."""

    attributes: dict
    inputs: tuple
    outputs_requested: tuple


def _empty(dtype_name: str) -> np.ndarray:
    return np.empty(0, dtype=object if dtype_name == "string" else dtypes.numpy_dtype(dtype_name))


def _attribute(v: Any) -> Any:
    if isinstance(v, dict) and "dtype" in v and "shape" in v and ("b64" in v or "strings" in v):
        return tensors.decode(v)  # a tensor attribute, as Case.from_json gives it
    return v


def _is_valid(case: Mapping[str, Any]) -> bool:
    """A case the spec expects outputs of (or leaves undefined), not one made to break a relation."""
    return (case.get("expected") or {}).get("kind") != "error" and not str(case.get("label", "")).startswith("breaks:")


def held_cases(results: Iterable[Result]) -> tuple[list[_Held], int]:
    """The distinct factor-relevant views of the valid cases the backend answered, and how many
    such cases there were. Variants share their base's types, attributes and outputs, so a ci run's
    tens of thousands of results come down to a few per row."""
    seen: dict[str, _Held] = {}
    answered = 0
    for r in results:
        case = r.case
        if not r.verdict.ran or not case or not _is_valid(case):  # unsupported or opconform's own failure: not exercised
            continue
        answered += 1
        types = tuple(None if x is None else x.get("dtype") for x in case.get("inputs", ()))
        key = json.dumps([types, case.get("attributes", {}), case.get("outputs_requested", [])], sort_keys=True,
                         default=str)
        if key not in seen:
            seen[key] = _Held({k: _attribute(v) for k, v in (case.get("attributes") or {}).items()},
                              tuple(None if n is None else _empty(n) for n in types),
                              tuple(bool(b) for b in case.get("outputs_requested", ())))
    return list(seen.values()), answered


# ------------------------------------------------------------------ counting
def value_text(spec: SpecVersion, factor: str, value: Any) -> str:
    """A factor value as a reader names it: outputs by name, classes in angle brackets."""
    if factor == "outputs" and isinstance(value, tuple):
        return "+".join(p.name for p, on in zip(spec.outputs, value) if on) or "(none)"
    if isinstance(value, Class):
        return repr(value)
    return value if isinstance(value, str) else json.dumps(value, default=str)


def tuple_text(spec: SpecVersion, tup: tc.Tuple) -> str:
    names, values = tup
    return ", ".join(f"{n}={value_text(spec, n, v)}" for n, v in zip(names, values))


class _Required:
    """The allowed tuples of each spec version, computed once however many backends ran it."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int], tuple[SpecVersion, list[Factor], set] | str] = {}

    def get(self, spec_id: str, t: int) -> tuple[SpecVersion, list[Factor], set] | str:
        key = (spec_id, t)
        if key not in self._cache:
            try:
                spec = specs.load(spec_id)
            except Exception as e:  # noqa: BLE001 -- a result of a spec no longer in the library still reports
                self._cache[key] = f"spec version not in this library ({type(e).__name__})"
            else:
                fs = factors(spec)
                self._cache[key] = (spec, fs, tc.required(spec, fs, t) if fs else set())
        return self._cache[key]


def pair_coverage(spec: SpecVersion, fs: Sequence[Factor], want: set, results: Iterable[Result], t: int,
                  unsupported: Sequence[UnsupportedValue] = ()) -> PairCoverage:
    """The tuples of `want` (tuple_coverage.required) the backend's answered valid cases hold."""
    cases, answered = held_cases(results)
    got = {tc.tuple_key(tup) for tup in tc.held(spec, fs, cases, t)} if fs else set()
    missing = sorted((tup for tup in want if tc.tuple_key(tup) not in got), key=repr)
    blocked = sum(1 for names, values in missing
                  if any(u.matches(n, v) for n, v in zip(names, values) for u in unsupported))
    return PairCoverage(t, len(want), len(want) - len(missing), [tuple_text(spec, m) for m in missing[:MAX_MISSING]],
                        blocked, answered)


def coverage(rs: ResultSet) -> dict[tuple[str, str], PairCoverage]:
    """(backend, spec_id) -> its factor coverage, for every pair with results."""
    t_of = strengths(rs)
    unsupported = unsupported_values(rs)
    required = _Required()
    out: dict[tuple[str, str], PairCoverage] = {}
    for (backend, spec_id), results in rs.grouped().items():
        t = t_of.get(backend, 2)
        got = required.get(spec_id, t)
        if isinstance(got, str):
            out[(backend, spec_id)] = PairCoverage(t, note=got)
            continue
        spec, fs, want = got
        out[(backend, spec_id)] = pair_coverage(spec, fs, want, results, t, unsupported.get((backend, spec_id), ()))
    return out


@dataclass
class BackendCoverage:
    """A backend's factor coverage over every spec version it ran, for the first view's overview."""

    t: int
    total: int
    exercised: int
    unsupported_values: int  # factor values the backend does not support, over all spec versions

    @property
    def fraction(self) -> float | None:
        return None if self.total == 0 else self.exercised / self.total


def by_backend(rs: ResultSet, cov: Mapping[tuple[str, str], PairCoverage],
               unsupported: Mapping[tuple[str, str], list[UnsupportedValue]]) -> dict[str, BackendCoverage]:
    t_of = strengths(rs)
    out = {b: BackendCoverage(t_of.get(b, 2), 0, 0, 0) for b in rs.backends}
    for (b, _), c in cov.items():
        if b in out:
            out[b].total += c.total
            out[b].exercised += c.exercised
    for (b, _), items in unsupported.items():
        if b in out:
            out[b].unsupported_values += len(items)
    return out
