"""Holding a spec's elementwise value relations by replacing the elements that break them.

A relation such as `all(abs(float64(data)) <= 2 ** 10) and all(float64(data) > 0)` (integer
ReduceLogSum) or `all(isnan(scores) | (abs(scores) <= max))` (SoftmaxCrossEntropyLoss) says
something about each element of one input. A conjunct that reads the values of just one input of
one element (CumSum's `-rank(x) <= values(axis)[0] <= rank(x) - 1`, TopK's K) is held the same
way: that element is replaced by a value that holds it. Drawing whole tensors and rejecting the ones where
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
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from opconform import dtypes, specs
from opconform.generator.draft import Draft
from opconform.generator.values import edge_values, from_elements, integers, plain_values
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
    scalar: bool = False  # not an all(...): a test of one input of one element (CumSum's axis, TopK's K)


# id(spec) -> (weak reference to spec, its terms): asked for by every draft strategy, breaker and
# must-refuse strategy, and reading them substitutes symbols into every relation's tree
_TERMS: dict[int, tuple[weakref.ref, tuple["Term", ...]]] = {}


def terms(spec: SpecVersion) -> tuple[Term, ...]:
    """The `all(...)` conjuncts of the spec's relations that read an input's values, and the
    conjuncts that read the values of just one input (scalar terms); once per spec version."""
    entry = _TERMS.get(id(spec))
    if entry is not None and entry[0]() is spec:
        return entry[1]
    found = _read_terms(spec)
    key = id(spec)
    _TERMS[key] = (weakref.ref(spec, lambda _, key=key: _TERMS.pop(key, None)), found)
    return found


def _read_terms(spec: SpecVersion) -> tuple[Term, ...]:
    from opconform.generator.solver import conjuncts  # the same conjuncts, symbols substituted

    inputs = {p.name for p in spec.inputs if not p.variadic}  # a variadic port is a tuple of tensors
    out = []
    for rid, when, part in conjuncts(spec):
        if isinstance(part, ast.Call) and getattr(part.func, "id", "") == "all" and len(part.args) == 1:
            named = tuple(sorted(_value_reads(part.args[0], inputs)))  # rank(data) alone is not repaired
            if named:
                out.append(Term(rid, when, expr.compiled(ast.unparse(part.args[0])), named))
        elif len(read := _value_reads(part, inputs)) == 1:
            out.append(Term(rid, when, expr.compiled(ast.unparse(part)), tuple(read), scalar=True))
    return tuple(out)


_STRUCTURE = {"shape", "rank", "size", "len", "dtype", "present"}


def _value_reads(node: ast.AST, inputs: set[str]) -> set[str]:
    """The inputs a conjunct reads the values of (not only their shape, size, type or presence)."""
    structural = set()
    for c in ast.walk(node):
        if isinstance(c, ast.Call) and getattr(c.func, "id", "") in _STRUCTURE and len(c.args) == 1:
            arg = c.args[0].value if isinstance(c.args[0], ast.Subscript) else c.args[0]  # rank(inputs[0])
            if isinstance(arg, ast.Name):
                structural.add(id(arg))
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in inputs and id(n) not in structural}


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
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None, None
    if ok.dtype != bool:
        return None, None
    if t.scalar:
        x = env.get(t.inputs[0])
        if not isinstance(x, np.ndarray) or x.size != 1 or ok.size != 1:
            return None, None  # a whole tensor is not replaced for one truth value
        return t.inputs[0], np.full(x.shape, bool(ok))
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
            if t.scalar:  # one candidate at a time, in the input's own shape
                keep &= np.array([_scalar_holds(t, probe, name, np.full(x.shape, v, dtype=x.dtype)) for v in plain], dtype=bool)
            else:
                keep &= np.asarray(t.test(probe), dtype=bool).reshape(plain.shape)
        except (expr.ExprError, TypeError, ValueError, IndexError):
            keep[:] = False
    return np.concatenate([own[:_POOL], plain[keep]])[: 2 * _POOL]


def _scalar_holds(t: Term, env: dict, name: str, value: np.ndarray) -> bool:
    env[name] = value
    try:
        return bool(t.test(env))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return False


# ------------------------------------------------------------------ breaking
def breakers(spec: SpecVersion) -> dict:
    """Relation id -> breaker(draw, draft): one element of the input a value term reads set just
    outside what the term allows (an index one past the dimension, -1 for a non-negative count:
    a value next to one that holds, where there is one; else any value of the type that fails),
    for the must-refuse cases of relations the hooks no longer break by hand."""
    by_relation: dict[str, list[Term]] = {}
    for t in terms(spec):
        by_relation.setdefault(t.relation, []).append(t)
    return {rid: _breaker(ts) for rid, ts in by_relation.items()}


def _breaker(ts: list[Term]):
    def breaker(draw, d: Draft) -> None:
        env = specs.environment(d.spec, d.inputs, d.attributes)
        usable = [(t, target) for t in ts if (target := _evaluate(t, env)[0]) is not None and env[target].size > 0]
        if not usable:
            return
        t, name = usable[draw(st.integers(0, len(usable) - 1))]
        x = env[name]
        # mostly just outside; now and then an edge value of the type that fails (onnxruntime
        # accepted TopK's K = 2**53 + 1 where it refuses n + 1)
        outside = _extremes(x, t, env, name) if draw(st.integers(0, 3)) == 3 else np.array([], dtype=x.dtype)
        if outside.size == 0:
            outside = _outside(x, t, env, name)
        if outside.size == 0:
            return
        k = draw(st.integers(0, x.size - 1))
        broken = x.copy()
        broken.reshape(-1)[k] = outside[draw(st.integers(0, outside.size - 1))]
        d.set_input(name, broken)
    return breaker


def _outside(x: np.ndarray, t: Term, env: dict, name: str) -> np.ndarray:
    """Values of x's type that fail the term: those next to a value that holds it first (for
    integers, a holding value plus or minus one), else any plain or edge value that fails."""
    try:
        kind = dtypes.get(dtypes.name_of(x.dtype)).kind
        plain = plain_values(dtypes.name_of(x.dtype)).astype(x.dtype)
    except dtypes.UnknownElementType:
        return np.array([], dtype=x.dtype)
    pool = np.concatenate([plain, x.reshape(-1)[:_POOL]])
    holds = _holding(t, env, name, x, pool)
    if kind in ("int", "uint"):
        info = np.iinfo(x.dtype)
        near = {int(v) + s for v in pool[holds].tolist() for s in (-1, 1)}
        pool = np.array(sorted(v for v in near if info.min <= v <= info.max), dtype=x.dtype)
        fails = ~_holding(t, env, name, x, pool)
        if fails.any():
            return pool[fails]
        pool = plain
    return pool[~_holding(t, env, name, x, pool)]


def _extremes(x: np.ndarray, t: Term, env: dict, name: str) -> np.ndarray:
    """The edge values of x's type (limits, 2**53 + 1, NaN, inf ...) that fail the term."""
    try:
        type_name = dtypes.name_of(x.dtype)
        stored = [v for members in edge_values(type_name).values() for v in members]
        pool = from_elements(type_name, stored, (len(stored),)) if stored else np.array([], dtype=x.dtype)
    except (dtypes.UnknownElementType, ValueError, TypeError):
        return np.array([], dtype=x.dtype)
    return pool[~_holding(t, env, name, x, pool)] if pool.size else pool


def _holding(t: Term, env: dict, name: str, x: np.ndarray, pool: np.ndarray) -> np.ndarray:
    probe = dict(env)
    try:
        if t.scalar:
            return np.array([_scalar_holds(t, probe, name, np.full(x.shape, v, dtype=x.dtype)) for v in pool], dtype=bool)
        probe[name] = pool
        return np.asarray(t.test(probe), dtype=bool).reshape(pool.shape)
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return np.ones(pool.shape, dtype=bool)  # cannot tell: offer nothing
