"""The case strategies: valid drafts from the steps, invalid ones by breaking one relation.

    >>> from opconform import specs
    >>> from opconform.generator import cases
    >>> cases(specs.load("onnx::GatherND-13"), kind="invalid")   # SearchStrategy[Case]

Everything is drawn from Hypothesis primitives through `draw`, so failing cases shrink: smaller
ranks and shapes, plain values instead of edge values, attributes omitted, the first relation.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Mapping, Sequence

from hypothesis import assume, strategies as st

from opconform import specs
from opconform.generator import exercised, mutations, profiles, solver, steps, value_repair
from opconform.generator.draft import Draft
from opconform.generator.factors import factors as spec_factors
from opconform.generator.families.default import STEPS
from opconform.generator.values import pick
from opconform.model import Case, Expectation, SpecVersion

ExpectFn = Callable[[SpecVersion, Sequence, Mapping], Expectation]
KINDS = ("any", "valid", "invalid")


def drafts(spec: SpecVersion, profile: str | profiles.Profile = "smoke", *,
           row: Mapping[str, Any] | None = None, log: list[str] | None = None) -> st.SearchStrategy[Draft]:
    """Drafts whose every relation holds (rejection of the rest is left to Hypothesis).

    row: a covering-array row (factor name -> value) every draft must hold: the steps honour its
    pins (generator/pins.py) and a draft that does not hold it all the same (a hook chose
    otherwise) is rejected, never returned. log: where to append why a draw was rejected (a
    broken relation, a pin not held), for the caller to report a row that cannot be drawn."""
    return _row_drafts(spec, profiles.get(profile))(dict(row or {}), log)


# (id(spec), profile name) -> (weak reference to spec, valid_draft): defining a composite reads
# its source (milliseconds), and every relation's must-refuse strategy asks for the valid one
_ROW_DRAFTS: dict[tuple[int, str], tuple[weakref.ref, Callable[..., st.SearchStrategy[Draft]]]] = {}


def _row_drafts(spec: SpecVersion, prof: profiles.Profile) -> Callable[..., st.SearchStrategy[Draft]]:
    """valid_draft(row, log): the draft strategy for any row, built once per spec version and
    profile (the composite is defined once: defining one costs milliseconds, too much per row)."""
    key = (id(spec), prof.name)
    entry = _ROW_DRAFTS.get(key)
    if entry is not None and entry[0]() is spec:
        return entry[1]
    made = _define_row_drafts(spec, prof, spec_factors(spec))
    # the callback holds the dict itself: at interpreter exit the module global may already be None
    _ROW_DRAFTS[key] = (weakref.ref(spec, lambda _, key=key, drafts=_ROW_DRAFTS: drafts.pop(key, None)), made)
    return made


def _define_row_drafts(spec: SpecVersion, prof: profiles.Profile, all_factors: list) -> Callable[..., st.SearchStrategy[Draft]]:
    functions = [steps.resolve(spec, step) for step in STEPS]  # resolved once, not per draw
    plan, elementwise = solver.compile_plan(spec), value_repair.terms(spec)

    @st.composite
    def valid_draft(draw, row: Mapping[str, Any], log: list[str] | None) -> Draft:  # a closure: short repr
        d = Draft(spec, prof, row=row)
        for name, fn in zip(STEPS, functions):
            fn(draw, d)
            if name == "presence":  # later steps may assign inputs by index
                d.inputs = [None] * len(d.present)
        plan.apply(draw, d)
        value_repair.repair(draw, d, elementwise)
        broken = first_broken(spec, d)
        if broken is not None:
            _note(log, f"relation {broken} does not hold")
            assume(False)
        if row:
            fs = [f for f in all_factors if f.name in row]
            missed = exercised.mismatches(spec, row, exercised.exercised(spec, fs, d))
            if missed:
                _note(log, "pin not held: " + "; ".join(missed))
                assume(False)
        return d

    return valid_draft


def row_cases(spec: SpecVersion, profile: str | profiles.Profile = "smoke",
              expect: ExpectFn | None = None) -> Callable[..., st.SearchStrategy[Case]]:
    """`strategy(row, log=None)`: valid cases holding a row, as cases(kind="valid", row=...), with
    the spec's steps and factors worked out once for all its rows (they cost milliseconds each)."""
    valid_draft = _row_drafts(spec, profiles.get(profile))

    def strategy(row: Mapping[str, Any], log: list[str] | None = None) -> st.SearchStrategy[Case]:
        return valid_draft(dict(row), log).map(lambda d: finish(spec, d, expect))

    return strategy


def _note(log: list[str] | None, why: str) -> None:
    if log is not None:
        log.append(why)


def first_broken(spec: SpecVersion, d: Draft) -> str | None:
    """The id of the first relation the draft does not hold, or None."""
    for s in specs.check_all(spec, d.inputs, d.attributes):
        if s.state not in ("holds", "not-applicable"):
            return s.id
    return None


def holds(spec: SpecVersion, d: Draft) -> bool:
    return first_broken(spec, d) is None


def error_relations(spec: SpecVersion) -> list[str]:
    """Relations marked `error` that some breaker can target, in spec order."""
    known = set(mutations.generic_breakers(spec)) | set(steps.breakers(spec))
    return [r.id for r in spec.relations if r.on_violation == "error" and (r.id in known or not _implicit(spec, r.id))]


def _implicit(spec: SpecVersion, rid: str) -> bool:
    names = [p.name for p in spec.inputs] + [a.name for a in spec.attributes]
    return any(rid.startswith(n + "_") and rid[len(n) + 1:].split("_")[0] in ("type", "rank", "allowed", "range") for n in names)


def broken_by(spec: SpecVersion, d: Draft, relation: str) -> tuple[bool, list[str]]:
    """(acceptable, other broken relations): acceptable when `relation` is broken, is the first
    relation that does not hold, and every `undefined` relation still holds. Later error relations
    that break with it (the ones that cannot hold without it) are returned for the label."""
    statuses = specs.check_all(spec, d.inputs, d.attributes)
    failing = [s for s in statuses if s.state in ("broken", "unevaluable")]
    if not failing or failing[0].id != relation or failing[0].state != "broken":
        return False, []
    if any(s.on_violation != "error" and s.state == "broken" for s in failing):
        return False, []  # an `undefined` relation that cannot be evaluated after the break is fine
    return True, [s.id for s in failing[1:]]


def invalid_drafts(spec: SpecVersion, profile: str | profiles.Profile = "smoke",
                   relations: Sequence[str] | None = None) -> st.SearchStrategy[Draft]:
    """Valid drafts with one `error` relation broken (drawn from `relations`, default: all)."""
    targets = tuple(relations) if relations is not None else tuple(error_relations(spec))
    breakers = {**mutations.generic_breakers(spec), **steps.breakers(spec)}
    return _invalid_draft(spec, drafts(spec, profile), targets, breakers, value_repair.terms(spec))


@st.composite
def _invalid_draft(draw, spec: SpecVersion, valid: st.SearchStrategy[Draft], targets: tuple[str, ...],
                   breakers: Mapping[str, Callable], elementwise: tuple) -> Draft:
    """A valid draft with one of `targets` broken (defined once here: see _row_drafts). The value
    relations other than the target are held again after the break (an input drawn again at a
    broken shape gets fresh values), so that the case breaks its relation and no other."""
    # evenly: under @given, Hypothesis draws sampled_from's first options far more often, so
    # the last relations of a long list went unbroken in a few hundred examples
    relation = pick(draw, targets)
    d = draw(valid)
    breakers.get(relation, mutations.perturb)(draw, d)
    value_repair.repair(draw, d, elementwise, broken=relation)  # what breaks `relation` stays
    ok, also = broken_by(spec, d, relation)
    assume(ok)
    d.label = f"breaks:{relation}"
    if also:
        d.notes.append("also:" + ",".join(also))
    return d


def default_expectation(spec: SpecVersion, inputs: Sequence, attributes: Mapping) -> Expectation:
    """Without an oracle: outputs (no alternatives) when every relation holds, else the first broken."""
    failing = [s for s in specs.check_all(spec, list(inputs), dict(attributes)) if s.state in ("broken", "unevaluable")]
    if not failing:
        return Expectation("outputs", ())
    first = failing[0]
    return Expectation("error" if first.on_violation == "error" else "undefined", relation=first.id)


def finish(spec: SpecVersion, d: Draft, expect: ExpectFn | None, seed: int | None = None) -> Case:
    fn = expect or default_expectation
    return d.to_case(fn(spec, list(d.inputs), dict(d.attributes)), seed)


def cases(spec: SpecVersion, *, kind: str = "any", profile: str | profiles.Profile = "smoke",
          expect: ExpectFn | None = None, row: Mapping[str, Any] | None = None,
          log: list[str] | None = None, relations: Sequence[str] | None = None) -> st.SearchStrategy[Case]:
    """Cases of one spec version.

    kind: "valid" (every relation holds), "invalid" (exactly one `error` relation broken, see
    broken_by) or "any" (either). profile: smoke, ci, certify or stress (sizes). expect:
    `expect(spec, inputs, attributes) -> Expectation`, normally `opconform.oracle.expectation`.
    row: valid cases hold this covering-array row (see drafts); only with kind="valid", since a
    must-refuse case breaks what it breaks. log: see drafts. relations: the `error` relations
    invalid cases break (default: every one the generator can break)."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}; expected one of {', '.join(KINDS)}")
    if row and kind != "valid":
        raise ValueError(f"a row pins valid cases only; got kind={kind!r}")
    profiles.get(profile)
    valid = drafts(spec, profile, row=row, log=log)
    invalid = invalid_drafts(spec, profile, relations) if kind != "valid" and error_relations(spec) else st.nothing()
    chosen = {"valid": valid, "invalid": invalid, "any": st.one_of(valid, invalid)}[kind]
    return chosen.map(lambda d: finish(spec, d, expect))
