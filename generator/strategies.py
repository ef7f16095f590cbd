"""The case strategies: valid drafts from the steps, invalid ones by breaking one relation.

    >>> from opconform import specs
    >>> from opconform.generator import cases
    >>> cases(specs.load("onnx::GatherND-13"), kind="invalid")   # SearchStrategy[Case]

Everything is drawn from Hypothesis primitives through `draw`, so failing cases shrink: smaller
ranks and shapes, plain values instead of edge values, attributes omitted, the first relation.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from hypothesis import assume, strategies as st

from opconform import specs
from opconform.generator import mutations, profiles, steps
from opconform.generator.draft import Draft
from opconform.generator.families.default import STEPS
from opconform.model import Case, Expectation, SpecVersion

ExpectFn = Callable[[SpecVersion, Sequence, Mapping], Expectation]
KINDS = ("any", "valid", "invalid")


def drafts(spec: SpecVersion, profile: str | profiles.Profile = "smoke") -> st.SearchStrategy[Draft]:
    """Drafts whose every relation holds (rejection of the rest is left to Hypothesis)."""
    prof = profiles.get(profile)
    functions = [steps.resolve(spec, step) for step in STEPS]  # resolved once, not per draw

    @st.composite
    def valid_draft(draw) -> Draft:  # a closure, so Hypothesis prints a short repr, not the spec
        d = Draft(spec, prof)
        for name, fn in zip(STEPS, functions):
            fn(draw, d)
            if name == "presence":  # later steps may assign inputs by index
                d.inputs = [None] * len(d.present)
        assume(holds(spec, d))
        return d

    return valid_draft()


def holds(spec: SpecVersion, d: Draft) -> bool:
    return all(s.state in ("holds", "not-applicable") for s in specs.check_all(spec, d.inputs, d.attributes))


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
    targets = list(relations) if relations is not None else error_relations(spec)
    valid = drafts(spec, profile)
    own, generic = steps.breakers(spec), mutations.generic_breakers(spec)

    @st.composite
    def invalid_draft(draw) -> Draft:
        relation = draw(st.sampled_from(targets))
        d = draw(valid)
        (own.get(relation) or generic.get(relation) or mutations.perturb)(draw, d)
        ok, also = broken_by(spec, d, relation)
        assume(ok)
        d.label = f"breaks:{relation}"
        if also:
            d.notes.append("also:" + ",".join(also))
        return d

    return invalid_draft()


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
          expect: ExpectFn | None = None) -> st.SearchStrategy[Case]:
    """Cases of one spec version.

    kind: "valid" (every relation holds), "invalid" (exactly one `error` relation broken, see
    broken_by) or "any" (either). profile: smoke, ci, certify or stress (sizes). expect:
    `expect(spec, inputs, attributes) -> Expectation`, normally `opconform.oracle.expectation`."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}; expected one of {', '.join(KINDS)}")
    profiles.get(profile)
    valid = drafts(spec, profile)
    invalid = invalid_drafts(spec, profile) if error_relations(spec) else st.nothing()
    chosen = {"valid": valid, "invalid": invalid, "any": st.one_of(valid, invalid)}[kind]
    return chosen.map(lambda d: finish(spec, d, expect))
