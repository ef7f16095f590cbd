"""Holding a spec's elementwise value relations by replacing the elements that break them.

A relation such as `all(abs(float64(data)) <= 2 ** 10) and all(float64(data) > 0)` (integer
ReduceLogSum) or `all(isnan(scores) | (abs(scores) <= max))` (SoftmaxCrossEntropyLoss) says
something about each element of one input. Drawing whole tensors and rejecting the ones where
some element breaks it almost never succeeds for tensors of hundreds of elements, so a covering
row pinned to an integer type could not be drawn at all. Instead, each `all(...)` term of a
relation that applies is evaluated on the drawn input; the elements where it is false are
replaced by values that hold every such term of that input: elements of the same tensor that
hold them (keeping its value classes) and the type's plain values.

    >>> plan = terms(spec)          # once per spec version
    >>> repair(draw, d, plan)       # after the steps, before the relations are checked

Nothing here decides validity: the draft's relations are all checked afterwards as before, so a
term that is not really elementwise (a reduction inside `all`) at worst leaves a draft that is
then rejected.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from opconform import dtypes, specs
from opconform.generator.draft import Draft
from opconform.generator.values import integers, plain_values
from opconform.model import SpecVersion
from opconform.specs import expr

_POOL = 256  # replacement values kept per input: the tensor's own good elements first


@dataclass(frozen=True)
class Term:
    """One `all(...)` conjunct of a relation: the elementwise test and when it applies."""

    relation: str
    when: Callable[[dict], Any] | None
    test: Callable[[dict], Any]
    inputs: tuple[str, ...]  # the spec's inputs the test names: the one whose shape it has is repaired


def terms(spec: SpecVersion) -> tuple[Term, ...]:
    """The `all(...)` conjuncts of the spec's relations that name at least one input."""
    inputs = {p.name for p in spec.inputs}
    out = []
    for r in spec.relations:
        try:
            body = expr.parse(r.check).body
            when = None if r.when is None else expr.compiled(r.when)
        except expr.ExprError:
            continue
        parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
        for part in parts:
            if not (isinstance(part, ast.Call) and part.func.id == "all" and len(part.args) == 1):
                continue
            text = ast.unparse(part.args[0])
            named = tuple(sorted(expr.names(text) & inputs))
            if named:
                out.append(Term(r.id, when, expr.compiled(text), named))
    return tuple(out)


def repair(draw, d: Draft, plan: tuple[Term, ...]) -> None:
    """Replace, in each input, the elements that break an applicable term (see the module text)."""
    if not plan:
        return
    env = specs.environment(d.spec, d.inputs, d.attributes)
    failing: dict[str, list[Term]] = {}
    for t in plan:
        target, ok = _evaluate(t, env)
        if target is not None and not np.all(ok):
            failing.setdefault(target, []).append(t)
    for name, broken in failing.items():
        tests = [t for t in plan if _target(t, env) == name]  # the replacements must hold all of them
        x = env[name]
        good = np.ones(x.shape, dtype=bool)
        for t in tests:
            good &= _evaluate(t, env)[1]
        pool = _pool(x, good, tests, env, name)
        if pool.size == 0:
            continue  # nothing holds them: the draft is rejected as before
        bad = np.flatnonzero(~good)
        # one choice for all of them, shrinking toward the pool's first values
        picks = integers(draw, 0, pool.size - 1, bad.size)
        fixed = x.copy()
        fixed.reshape(-1)[bad] = pool[np.asarray(picks, dtype=np.int64)]
        d.set_input(name, fixed)
        env = specs.environment(d.spec, d.inputs, d.attributes)


def _target(t: Term, env: dict) -> str | None:
    return _evaluate(t, env)[0]


def _evaluate(t: Term, env: dict) -> tuple[str | None, Any]:
    """(the input the test is elementwise over, its truth per element), or (None, None) when the
    term does not apply, cannot be evaluated, or matches no single input's shape."""
    try:
        if t.when is not None and not bool(t.when(env)):
            return None, None
        ok = np.asarray(t.test(env))
    except (expr.ExprError, TypeError, ValueError):
        return None, None
    if ok.dtype != bool:
        return None, None
    shaped = [n for n in t.inputs if isinstance(env.get(n), np.ndarray) and env[n].shape == ok.shape]
    return (shaped[0], ok) if len(shaped) == 1 else (None, None)


def _pool(x: np.ndarray, good: np.ndarray, tests: list[Term], env: dict, name: str) -> np.ndarray:
    """Values of x's type that hold every test: x's own good elements, then its plain values."""
    if x.dtype.kind in "OUS":
        own = np.array(list(dict.fromkeys(x[good].tolist())), dtype=x.dtype)
    else:
        with np.errstate(invalid="ignore"):  # NaNs (bfloat16's compare with a warning) are kept as values
            own = np.unique(x[good])
    try:
        plain = plain_values(dtypes.name_of(x.dtype)).astype(x.dtype)
    except dtypes.UnknownElementType:
        plain = np.array([], dtype=x.dtype)
    keep = np.ones(plain.shape, dtype=bool)
    probe = dict(env)
    probe[name] = plain
    for t in tests:
        try:
            keep &= np.asarray(t.test(probe), dtype=bool).reshape(plain.shape)
        except (expr.ExprError, TypeError, ValueError):
            keep[:] = False
    return np.concatenate([own[:_POOL], plain[keep]])[: 2 * _POOL]
