"""Evaluates a spec version's relations against concrete inputs and attributes.

The oracle checks every relation on every call, so the per-call work is kept small: each spec
version's symbols and relations are compiled once into a plan (see `_plan`), and `first_broken`
stops at the first relation that does not hold (statuses are independent of each other, so the
answer is the one `check_all` would give).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from opconform.model import Relation, RelationBroken, SpecVersion
from opconform.specs import expr


@dataclass(frozen=True)
class RelationStatus:
    id: str
    on_violation: str
    state: str  # "holds" | "broken" | "not-applicable" | "unevaluable"
    message: str = ""


Compiled = Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class _CompiledRelation:
    relation: Relation
    when: Compiled | None
    check: Compiled


@dataclass(frozen=True)
class _Plan:
    """A spec version's declarations and expressions, in the form each call needs."""

    input_names: tuple[str, ...]
    variadic_last: bool
    attribute_names: tuple[str, ...]
    symbols: tuple[tuple[str, Compiled], ...]
    relations: tuple[_CompiledRelation, ...]


# id(spec) -> (weak reference to spec, plan). SpecVersion holds dicts, so it cannot be a dict key
# itself; the weak reference checks the entry belongs to this very object and drops it with it.
_PLANS: dict[int, tuple[weakref.ref, _Plan]] = {}


def _plan(spec: SpecVersion) -> _Plan:
    key = id(spec)
    entry = _PLANS.get(key)
    if entry is not None and entry[0]() is spec:
        return entry[1]
    plan = _Plan(
        input_names=tuple(p.name for p in spec.inputs),
        variadic_last=bool(spec.inputs) and spec.inputs[-1].variadic,
        attribute_names=tuple(a.name for a in spec.attributes),
        symbols=tuple((name, _function(text)) for name, text in spec.symbols.items()),
        relations=tuple(
            _CompiledRelation(r, None if r.when is None else _function(r.when), _function(r.check)) for r in spec.relations
        ),
    )
    _PLANS[key] = (weakref.ref(spec, lambda _, key=key: _PLANS.pop(key, None)), plan)
    return plan


def _function(text: str) -> Compiled:
    try:
        return expr.compiled(text)
    except expr.ExprError:  # malformed: refused again on every evaluation, exactly as expr.evaluate does
        return lambda env: expr.evaluate(text, env)


def environment(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Variables for the relation language: inputs by name, attributes (defaults filled), symbols."""
    return _environment(_plan(spec), spec, inputs, attributes)


def _environment(plan: _Plan, spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> dict[str, Any]:
    names = plan.input_names
    env: dict[str, Any] = dict(zip(names, list(inputs) + [None] * (len(names) - len(inputs))))
    # variadic last input: bind the list of all remaining inputs
    if plan.variadic_last:
        env[names[-1]] = tuple(inputs[len(names) - 1 :])
    env.update(dict.fromkeys(plan.attribute_names))
    env.update(spec.resolved_attributes(attributes))
    for name, fn in plan.symbols:
        try:
            env[name] = fn(env)
        except expr.ExprError:
            env[name] = _Unevaluable(name)
    return env


class _Unevaluable:
    """A symbol that could not be computed (its own preconditions failed)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<unevaluable {self.name}>"


def _state(r: _CompiledRelation, env: Mapping[str, Any]) -> tuple[str, str]:
    """(state, message) of one relation."""
    try:
        if r.when is not None and not _truth(r.when(env)):
            return "not-applicable", ""
        if _truth(r.check(env)):
            return "holds", ""
        return "broken", r.relation.check
    except (expr.ExprError, TypeError) as e:
        return "unevaluable", str(e)


def _status(r: _CompiledRelation, state: tuple[str, str]) -> RelationStatus:
    return RelationStatus(r.relation.id, r.relation.on_violation, *state)


def check_all(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> list[RelationStatus]:
    plan = _plan(spec)
    env = _environment(plan, spec, inputs, attributes)
    return [_status(r, _state(r, env)) for r in plan.relations]


def first_broken(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> RelationStatus | None:
    """The first relation (in spec order) that is broken; an unevaluable one counts as broken
    when an earlier one was not, since relations are written so each may assume the ones before."""
    plan = _plan(spec)
    env = _environment(plan, spec, inputs, attributes)
    for r in plan.relations:
        state = _state(r, env)
        if state[0] in ("broken", "unevaluable"):
            return _status(r, state)
    return None


def require(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> None:
    """Raise RelationBroken naming the first broken relation, if any."""
    s = first_broken(spec, inputs, attributes)
    if s is not None:
        raise RelationBroken(spec.id, s.id, s.on_violation, s.message)


def _truth(v: Any) -> bool:
    if isinstance(v, _Unevaluable):
        raise expr.ExprError(f"symbol {v.name!r} could not be evaluated")
    if isinstance(v, np.ndarray):
        return bool(np.all(v))
    return bool(v)
