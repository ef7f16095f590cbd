"""Which function runs each step for a spec: the operator hook's, else the family's, else the default."""
from __future__ import annotations

from typing import Callable

from opconform import specs
from opconform.generator import domains, families, hooks, solver, tensor_attributes, value_repair
from opconform.generator.families import default
from opconform.model import SpecVersion


def resolve(spec: SpecVersion, step: str) -> Callable:
    for module in (hooks.module_for(spec), families.module_for(spec), default):
        fn = getattr(module, step, None) if module is not None else None
        if fn is not None:
            return fn
    raise AttributeError(f"no {step} step")


def breakers(spec: SpecVersion) -> dict[str, Callable]:
    """Relation id -> function(draw, draft) that breaks it: the generic one for an attribute domain
    whose violation is an error, for a value relation value repair reads, or for a shape relation
    the solver reads, then the family's and the hook's BREAK."""
    out: dict[str, Callable] = dict(value_repair.breakers(spec))  # a family or hook may do better
    out.update(domains.breakers(spec))
    out.update(tensor_attributes.breakers(spec))
    for rid, shape_breaker in solver.breakers(spec).items():
        out[rid] = _else(shape_breaker, out[rid], rid) if rid in out else shape_breaker
    for module in (families.module_for(spec), hooks.module_for(spec)):
        out.update(getattr(module, "BREAK", {}) if module is not None else {})
    return out


def _else(first: Callable, second: Callable, relation: str) -> Callable:
    """A breaker trying `first`, then `second` where `relation` still is not broken: the solver
    breaks only the shape conjuncts of a relation that also reads values (GatherElements'
    indices_in_bounds: its axis dimension 0 under non-empty indices is rarely reachable, an index
    one past it always is; 18 of 20 must-refuse drafts kept the relation once the solver broke
    disjunctions)."""
    def breaker(draw, d) -> None:
        first(draw, d)
        if not any(s.id == relation and s.state == "broken" for s in specs.check_all(d.spec, d.inputs, d.attributes)):
            second(draw, d)
    return breaker
