"""Evaluates a spec version's relations against concrete inputs and attributes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from opconform.model import RelationBroken, SpecVersion
from opconform.specs import expr


@dataclass(frozen=True)
class RelationStatus:
    id: str
    on_violation: str
    state: str  # "holds" | "broken" | "not-applicable" | "unevaluable"
    message: str = ""


def environment(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Variables for the relation language: inputs by name, attributes (defaults filled), symbols."""
    env: dict[str, Any] = {}
    for port, x in zip(spec.inputs, list(inputs) + [None] * (len(spec.inputs) - len(inputs))):
        env[port.name] = x
    # variadic last input: bind the list of all remaining inputs
    if spec.inputs and spec.inputs[-1].variadic:
        env[spec.inputs[-1].name] = tuple(inputs[len(spec.inputs) - 1 :])
    for a in spec.attributes:
        env[a.name] = None
    env.update(spec.resolved_attributes(attributes))
    for name, text in spec.symbols.items():
        try:
            env[name] = expr.evaluate(text, env)
        except expr.ExprError:
            env[name] = _Unevaluable(name)
    return env


class _Unevaluable:
    """A symbol that could not be computed (its own preconditions failed)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<unevaluable {self.name}>"


def check_all(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> list[RelationStatus]:
    env = environment(spec, inputs, attributes)
    out = []
    for r in spec.relations:
        try:
            if r.when is not None and not _truth(expr.evaluate(r.when, env)):
                out.append(RelationStatus(r.id, r.on_violation, "not-applicable"))
                continue
            ok = _truth(expr.evaluate(r.check, env))
            out.append(RelationStatus(r.id, r.on_violation, "holds" if ok else "broken", "" if ok else r.check))
        except (expr.ExprError, TypeError) as e:
            out.append(RelationStatus(r.id, r.on_violation, "unevaluable", str(e)))
    return out


def first_broken(spec: SpecVersion, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> RelationStatus | None:
    """The first relation (in spec order) that is broken; an unevaluable one counts as broken
    when an earlier one was not, since relations are written so each may assume the ones before."""
    for s in check_all(spec, inputs, attributes):
        if s.state in ("broken", "unevaluable"):
            return s
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
