"""The relation solver: a spec's shape relations of a few invertible forms, compiled once per spec
version into fixes that set one input's shape (or one attribute) from what is already drawn.

    >>> plan = compile_plan(spec)     # once per spec version
    >>> plan.apply(draw, d)           # after the steps: each broken relation of these forms is made to hold

The forms (`X` an input, `E` any expression of other inputs' shapes, attributes and constants;
symbols are substituted first, so `C % num_groups == 0` with `C: shape(X)[1]` is the third form;
a dimension `shape(X)[k]` may also be `(shape(X)[i] if c else shape(X)[j])`, the index chosen by
evaluating c: Gemm's K under transA):

    shape(X) == E              X gets shape E (E may read single dimensions of X itself:
                               TensorScatter's update keeps its own sequence dimension)
    shape(X)[k] == E           dimension k of X becomes E
    shape(X)[k] % E == 0       dimension k of X becomes a multiple of E
    size(X) == E, len(X) == E  X gets E elements (rank kept where it can hold them; 0: one dimension 0)
    size(X) <= E, len(X) <= E  X's first dimension drawn so that it holds 0 .. E elements
    rank(X) == E               X is drawn again with rank E
    rank(X) >= c               X is drawn again with a rank from c up (c a constant)
    prod(shape(X)[a:b]) >= 1   the zero dimensions of that part become 1 (also size(X) >= 1, > 0;
                               a and b may be expressions: LayerNormalization's normalized part)
    shape(X)[k] >= c           dimension k of X becomes at least c (a constant)
    broadcast_shape(E, shape(X)) == E   X no longer than E, each dimension E's or 1 (either order
                               of the arguments; E may be shape(A) or a tuple such as (M, N))
    broadcastable(shape(A), .., shape(X))   X's dimensions that clash with the broadcast of the
                               others become theirs or 1 (each later shape in turn); left out where
                               the same relation says X unidirectionally broadcastable to A
    all(asarray(P) <= asarray(Q))   P selects dimensions of X, Q does not read X: those
                               dimensions drawn again within Q's (GatherElements: indices no
                               larger than data off the axis; Conv: kernel extents that fit);
                               with >=, raised to Q's (a pool's input holding its window)
    G or .. or D               each disjunct's conjuncts of these forms on one input X, the rest
                               guards: when all of it is broken, one disjunct whose guards hold is
                               drawn and its fixes applied (MatMulInteger's zero point: one
                               element, per row, or per row of each matrix)
    a == floor(a)              attribute a becomes an integral value next to it (Gemm's alpha
                               for integer tensors), on the same side of its default
    rank(X) != E               X is drawn again with another rank its port allows (CumSum's axis:
                               one element is a 0-D tensor, not a 1-D one)
    present(a) + .. + present(b) == 1   exactly one of these attributes given (Constant's value_*):
                               the one given (or one drawn) kept and the others left out; the
                               breaker leaves all out or gives a second one. Over optional inputs
                               the same (Resize's scales and sizes), by giving and leaving out
    C(a, dtypes)               a conjunct reading one attribute a with listed values and otherwise
                               only element types, presence, other attributes and constants: a is
                               set to a listed value under which it holds (BitCast's `to`, of the
                               input's bit width); its breaker sets one under which it fails

Either side of `==` may hold X. Fixes run in an order where a fix that sets X comes before every
fix that reads X (GroupNormalization: X's channel count is made a multiple of num_groups before
scale and bias are given size C); attribute fixes come first. An input a fix reshapes is drawn
again at its new shape (and given its row's value class again). Every other relation, and any
relation a fix could not make hold, stays a filter: the draft's relations are all checked
afterwards, as before.

`breakers(spec)` gives each relation with fixes a must-refuse breaker: one target's shape moved
just outside the form (broadcastable of two shapes on either side, or both where neither has a
dimension to clash with: MatMul's single matrices get stacks of 2 and 3); the fixes of the other
relations that read what it reshaped then run again, so that the case breaks its relation only.
"""
from __future__ import annotations

import ast
import copy
import math
import re
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from opconform import specs
from opconform.generator import exercised, pins, shapes
from opconform.generator.draft import Draft
from opconform.generator.factors import OMITTED
from opconform.model import SpecVersion
from opconform.specs import expr

# (draw, draft, env, target input index, evaluated right-hand side) -> the new shape, or None to leave it
ShapeRule = Callable[[Any, Draft, dict, int, Any], "tuple[int, ...] | None"]
# the same arguments -> an attribute's new value, or None to leave it (attribute fixes)
AttributeRule = Callable[[Any, Draft, dict, int, Any], Any]
# env -> a dimension index: a constant, or one chosen by an attribute (Gemm's transA)
Index = Callable[[dict], int]


@dataclass(frozen=True)
class Fix:
    """One relation conjunct the solver can make hold by reshaping input `target` (or, with
    `attribute`, by setting attribute `target`: the rule then returns its new value)."""

    relation: str
    form: str
    target: str
    reads: frozenset[str]  # other inputs whose shapes the right-hand side (or a guard) reads
    when: Callable[[dict], Any] | None
    check: Callable[[dict], Any]  # the conjunct itself
    rhs: Callable[[dict], Any] | None
    rule: ShapeRule | AttributeRule
    breaks: ShapeRule | None  # the shape just outside what the relation allows (None: no breaker)
    attribute: bool = False


@dataclass(frozen=True)
class Plan:
    fixes: tuple[Fix, ...]

    def apply(self, draw, d: Draft, skip: Callable[[Fix], bool] | None = None) -> None:
        """Make each broken conjunct of the plan hold, in the plan's order (but those of the fixes
        `skip` is true for)."""
        fixes = self.fixes if skip is None else [f for f in self.fixes if not skip(f)]
        if not fixes:
            return
        env = specs.environment(d.spec, d.inputs, d.attributes)
        for f in fixes:
            if f.attribute:
                # exactly-one also runs where it holds: the one given may be swapped for one that fits
                # the relations about it (TfIdfVectorizer's pool_strings for a string X)
                if (_applies(f, env) and (f.form == "exactly-one" or not _holds(f, env))
                        and _set_attribute(draw, d, env, f)):
                    env = specs.environment(d.spec, d.inputs, d.attributes)
                continue
            i = d.port_index(f.target)
            if i >= len(d.inputs) or d.inputs[i] is None or not _applies(f, env):
                continue
            if f.form not in _RANGES and _holds(f, env):
                continue  # an equality that holds: nothing to draw
            shape = _new_shape(f.rule, draw, d, env, i, f.rhs)
            if shape is None or not _rank_allowed(d, i, len(shape)):
                continue
            _redraw(draw, d, i, shape)
            env = specs.environment(d.spec, d.inputs, d.attributes)


    def apply_broken(self, draw, d: Draft) -> None:
        """Only the shape fixes of the conjuncts broken now (a range form too, which apply() draws
        anew where it holds): run again after value repair rewrote an attribute they read (Conv's
        kernel extents bounded by pads that were drawn negative)."""
        env = specs.environment(d.spec, d.inputs, d.attributes)
        # the others are judged by apply() as it goes: a fix reading what an earlier one redrew runs too
        self.apply(draw, d, skip=lambda f: f.attribute or (f.form in _RANGES and _holds(f, env)))


def _new_shape(rule: ShapeRule, draw, d: Draft, env: dict, i: int, rhs: Callable[[dict], Any] | None) -> tuple[int, ...] | None:
    """The shape a rule gives input i, or None where the rule gives none or cannot be evaluated."""
    try:
        shape = rule(draw, d, env, i, None if rhs is None else rhs(env))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None
    if shape is None or any(int(s) < 0 for s in shape):
        return None
    return tuple(int(s) for s in shape)


@dataclass(frozen=True)
class Attributes:
    """An attribute rule's answer that sets several attributes at once (a value of None: left out)."""

    values: dict[str, Any]


def _set_attribute(draw, d: Draft, env: dict, f: Fix) -> bool:
    try:
        value = f.rule(draw, d, env, -1, None)
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return False
    if value is None:
        return False
    if isinstance(value, Presence):
        for name, give in value.given.items():
            k = d.port_index(name)
            if give and d.inputs[k] is None:
                d.present[k] = True
                _redraw(draw, d, k, draw(shapes.shapes(draw(shapes.ranks(d.spec.inputs[k], d.profile)), d.profile)))
            elif not give:
                d.present[k], d.inputs[k] = False, None
        return True
    if isinstance(value, Attributes):
        for name, v in value.values.items():
            d.attributes.pop(name, None) if v is None else d.attributes.__setitem__(name, v)
        return True
    d.attributes[f.target] = value
    return True


def _applies(f: Fix, env: dict) -> bool:
    try:
        return f.when is None or bool(f.when(env))
    except expr.ExprError:
        return False


def _holds(f: Fix, env: dict) -> bool:
    return _true(f.check, env)


def _true(test: Callable[[dict], Any], env: dict) -> bool:
    try:
        return bool(np.all(test(env)))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return False  # e.g. an index past the rank: reshaping may make it evaluable


def _rank_allowed(d: Draft, i: int, rank: int) -> bool:
    p = d.spec.inputs[min(i, len(d.spec.inputs) - 1)]
    return rank >= p.rank_min and (p.rank_max is None or rank <= p.rank_max)


def _redraw(draw, d: Draft, i: int, shape: tuple[int, ...]) -> None:
    from opconform.generator.families.default import input_array  # the default steps draw arrays

    d.inputs[i] = input_array(draw, d, i, shape=shape)
    pins.input_values(draw, d, i)


def _stand_in(d: Draft, i: int, shape: tuple[int, ...]) -> np.ndarray:
    """An array of this shape and input i's element type that holds no memory of its own: what a
    rule or check reads of an input it is about to reshape is its shape."""
    return np.broadcast_to(np.empty((), dtype=d.inputs[i].dtype), shape)


# ------------------------------------------------------------------ shape rules
def _set_shape(draw, d, env, i, rhs):
    return tuple(int(v) for v in np.asarray(rhs).reshape(-1))


def _dim_rule(k: Index, multiple: bool) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape, at = list(d.inputs[i].shape), k(env)
        if not -len(shape) <= at < len(shape):
            return None
        want = int(rhs)
        if multiple:
            if want < 1:
                return None
            want *= draw(st.integers(1, max(1, 2 if want <= d.profile.max_side else 1)))
        shape[at] = want
        return tuple(shape)
    return rule


def _size_rule(at_most: bool) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        n = int(rhs)
        shape = d.inputs[i].shape
        if at_most:  # a first dimension anywhere in what is allowed (Compress's condition: 0 .. n)
            if not shape:
                return None
            rest = int(np.prod(shape[1:])) or 1
            return (draw(st.integers(0, max(0, n // rest))),) + tuple(shape[1:])
        if n == 0 and shape:  # empty: one dimension 0, the others kept (they may answer other relations)
            at = draw(st.integers(0, len(shape) - 1))
            return tuple(0 if k == at else s for k, s in enumerate(shape))
        if len(shape) == 0 or (n == 1 and d.spec.inputs[min(i, len(d.spec.inputs) - 1)].rank_min == 0):
            return () if n == 1 else (n,)  # one element: a scalar where the port allows (CumSum's axis)
        return (n,) + (1,) * (len(shape) - 1)
    return rule


def _rank_rule(draw, d, env, i, rhs):
    return draw(shapes.shapes(int(rhs), d.profile))


def _other_rank_rule(draw, d, env, i, rhs):
    """X drawn again with a rank its port allows other than rhs (None when there is none)."""
    lo, hi = shapes.rank_bounds(d.spec.inputs[min(i, len(d.spec.inputs) - 1)], d.profile)
    others = [r for r in range(lo, hi + 1) if r != int(rhs)]
    return draw(shapes.shapes(draw(st.sampled_from(others)), d.profile)) if others else None


def _rank_at_least_rule(floor: int) -> ShapeRule:
    """X drawn again with a rank from `floor` up (Squeeze's data, when axes name a dimension)."""
    def rule(draw, d, env, i, rhs):
        rank = len(d.inputs[i].shape)
        return None if rank >= floor else draw(shapes.shapes(floor + draw(st.integers(0, 2)), d.profile))
    return rule


def _rank_below_break(floor: int) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        return None if floor < 1 else draw(shapes.shapes(floor - 1, d.profile))
    return rule


def _at_least_rule(k: Index, floor: int) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape, at = list(d.inputs[i].shape), k(env)
        if not -len(shape) <= at < len(shape):
            return None
        shape[at] = max(shape[at], floor)
        return tuple(shape)
    return rule


# env -> (lo, hi) of a slice of X's dimensions; a bound may read X's rank (normalize_axis(axis, rank(X)))
Part = Callable[[dict], "tuple[int | None, int | None]"]


def _nonempty_rule(part: Part) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        for k in range(len(shape))[slice(*part(env))]:
            shape[k] = max(shape[k], 1)
        return tuple(shape)
    return rule


def _unidirectional_rule(draw, d, env, i, rhs):
    """Y fitted to broadcast to A without changing A: no longer than A, each dimension A's or 1.
    A Y longer than A keeps a trailing part of any length up to A's (drawn): cut to A's length
    every time, a Y drawn at a rank above A's would always get A's rank, and a scalar or a
    vector Scale of LayerNormalization or C of Gemm would be rare."""
    a, y = [int(v) for v in np.asarray(rhs).reshape(-1)], list(d.inputs[i].shape)
    if len(y) > len(a):
        y = y[len(y) - draw(st.integers(0, len(a))):] if len(a) else []
    for k in range(1, len(y) + 1):
        if y[-k] not in (a[-k], 1):
            y[-k] = draw(st.sampled_from([a[-k], 1]))
    return tuple(y)


def _leading(rule: ShapeRule, end: int | None) -> ShapeRule:
    """The rule applied to X's leading dimensions shape(X)[:end] only (MatMul's stacks), the rest kept."""
    if end is None:
        return rule

    def on_prefix(draw, d, env, i, rhs):
        full = d.inputs[i].shape
        cut = len(full[:end])
        head = _on_shape(rule, draw, d, env, i, rhs, full[:cut])
        if head is None or (len(head) != cut and not _room(full, end)):
            return None  # a 1-D B of MatMul has no stack to lengthen: (3, k) would be a matrix
        return tuple(head) + tuple(full[cut:])
    return on_prefix


def _room(full: tuple[int, ...], end: int | None) -> bool:
    """Whether the part shape(X)[:end] can be lengthened (leading dimensions added): the whole
    shape, or a part before the last -end dimensions of an X that has them."""
    return end is None or (end < 0 and len(full) >= -end)


def _on_shape(rule: ShapeRule, draw, d, env, i, rhs, shape: tuple) -> tuple | None:
    saved = d.inputs[i]
    d.inputs[i] = _stand_in(d, i, shape)  # the rule reads the shape only
    try:
        return rule(draw, d, env, i, rhs)
    finally:
        d.inputs[i] = saved


def _broadcast_rule(draw, d, env, i, rhs):
    a, x = [int(v) for v in np.asarray(rhs).reshape(-1)], list(d.inputs[i].shape)
    for k in range(1, min(len(a), len(x)) + 1):
        if x[-k] != a[-k] and x[-k] != 1 and a[-k] != 1:
            x[-k] = draw(st.sampled_from([a[-k], 1]))
    return tuple(x)


# env -> the dimensions of X (in order) that a selection such as shape(X)[:a] + shape(X)[a + 1:] picks
Selection = Callable[[dict, int], "list[int]"]


def _at_most_rule(picked: Selection) -> ShapeRule:
    """The picked dimensions of X that exceed their bound drawn again within it: 1 .. bound (0
    only for a bound of 0), so that X is not made empty where it was not (an empty X has no
    element a value breaker could move out of bounds; the steps draw empty tensors already)."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        for k, bound in zip(picked(env, len(shape)), np.asarray(rhs).reshape(-1).tolist()):
            if shape[k] > bound:
                shape[k] = draw(st.integers(min(1, int(bound)), max(0, int(bound))))
        return tuple(shape)
    return rule


def _at_least_all_rule(picked: Selection) -> ShapeRule:
    """The picked dimensions of X below their bound raised to it or one past it; a shape past
    the profile's element cap is not applied (the draft is then rejected)."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        for k, bound in zip(picked(env, len(shape)), np.asarray(rhs).reshape(-1).tolist()):
            if shape[k] < bound:
                shape[k] = int(bound) + draw(st.integers(0, 1))
        return tuple(shape) if shapes.fits(tuple(shape), d.profile) else None
    return rule


def _integral_rule(name: str, default: Any) -> AttributeRule:
    """An attribute's value made integral: floor or ceil, keeping it the default or not as it was
    (a covering row may pin a non-default value)."""
    def rule(draw, d, env, i, rhs):
        v = env[name]
        if not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            return None
        near = [float(math.floor(v)), float(math.ceil(v))]
        keep = [x for x in near if (x == default) == (v == default)] or near
        value = draw(st.sampled_from(sorted(set(keep))))
        return int(value) if isinstance(v, (int, np.integer)) else value
    return rule


# forms that leave a range open rather than one value: the quantity is always drawn inside it
# (Compress's condition anywhere in 0 .. n, not only cut back when it is too long)
_RANGES = {"size-at-most"}


# ------------------------------------------------------------------ breaking
def _off_by_one(draw, d, env, i, rhs, shape):
    """One dimension one larger (or, for a scalar, a vector of two)."""
    shape = list(shape)
    if not shape:
        return (2,)
    k = draw(st.integers(0, len(shape) - 1))
    shape[k] += 1
    return tuple(shape)


def _break_shape(draw, d, env, i, rhs):
    return _off_by_one(draw, d, env, i, rhs, _set_shape(draw, d, env, i, rhs))


def _break_unidirectional(draw, d, env, i, rhs):
    """A's shape with one dimension one larger (neither A's nor 1), or one rank more than A."""
    a = [int(v) for v in np.asarray(rhs).reshape(-1)]
    grow = [k for k, n in enumerate(a) if n >= 1]
    if not grow:
        return (2,) + tuple(a)
    a[draw(st.sampled_from(grow))] += 1
    return tuple(a)


def _dim_break(k: Index, how: str, floor: int = 0) -> ShapeRule:
    """Dimension k moved just outside: one past E ("dim"), not a multiple of E ("multiple"), one
    below the floor ("at-least")."""
    def rule(draw, d, env, i, rhs):
        shape, at = list(d.inputs[i].shape), k(env)
        if not -len(shape) <= at < len(shape):
            return None
        if how == "dim":
            shape[at] = int(rhs) + 1
        elif how == "multiple":
            e = int(rhs)
            if e < 2:
                return None  # every size is a multiple of 1
            shape[at] = e * draw(st.integers(0, 1)) + draw(st.integers(1, e - 1))
        elif floor >= 1:
            shape[at] = floor - 1
        else:
            return None
        return tuple(shape)
    return rule


def _break_size(draw, d, env, i, rhs):
    n = int(rhs) + draw(st.sampled_from([1, -1] if int(rhs) > 0 else [1]))
    shape = d.inputs[i].shape
    return (n,) + (1,) * (len(shape) - 1) if shape else (n,)


def _break_size_at_most(draw, d, env, i, rhs):
    shape = d.inputs[i].shape
    return (int(rhs) + 1,) + (1,) * (len(shape) - 1) if shape else None


def _break_rank(draw, d, env, i, rhs):
    return draw(shapes.shapes(int(rhs) + 1, d.profile))


def _nonempty_break(part: Part) -> ShapeRule:
    """One dimension of the part 0."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        inside = list(range(len(shape))[slice(*part(env))])
        if not inside:
            return None
        shape[draw(st.sampled_from(inside))] = 0
        return tuple(shape)
    return rule


def _break_broadcast(draw, d, env, i, rhs):
    """One dimension of X clashing with a dimension of the others' broadcast larger than 1; X
    given leading 1s first where that dimension is past its rank (MatMul: a stack for B, whose
    matrices alone broadcast against any stack of A)."""
    a, x = np.asarray(rhs).reshape(-1).tolist(), list(d.inputs[i].shape)
    clash = [k for k in range(1, len(a) + 1) if a[-k] > 1]
    if not clash:
        return None
    k = draw(st.sampled_from(clash))
    x = [1] * max(0, k - len(x)) + x
    x[-k] = a[-k] + 1
    return tuple(x)


def _pair_break(first: tuple[str, int | None], end: int | None) -> ShapeRule:
    """broadcastable(P, Q) of two shapes (or leading parts) broken at one aligned dimension: Q's
    made to clash with P's where P's is not 1, else P's with Q's, else both (2 and 3), so that
    shapes that give nothing to clash with (MatMul's single matrices) can still be broken. A
    part is lengthened only where its input has room (_room). Q's input is the target; P's is
    drawn again here."""
    name, first_end = first

    def rule(draw, d, env, i, rhs):
        j = d.port_index(name)
        if j >= len(d.inputs) or d.inputs[j] is None:
            return None
        (p, p_rest, p_room), (x, x_rest, x_room) = _split(d.inputs[j].shape, first_end), _split(d.inputs[i].shape, end)
        single, both = [], []
        for k in range(1, max(len(p), len(x)) + 2):
            pv, xv = (p[-k] if k <= len(p) else 1), (x[-k] if k <= len(x) else 1)
            if pv != 1 and (k <= len(x) or x_room):
                single.append((k, pv, _clash(pv)))
            elif xv != 1 and (k <= len(p) or p_room):
                single.append((k, _clash(xv), xv))
            elif (k <= len(p) or p_room) and (k <= len(x) or x_room):
                both.append((k, 2, 3))
        options = single or both
        if not options:
            return None
        k, pv, xv = options[draw(st.integers(0, len(options) - 1))]
        p2, x2 = _set_at(p, k, pv), _set_at(x, k, xv)
        if p2 != p:
            if not _rank_allowed(d, j, len(p2) + len(p_rest)):
                return None
            _redraw(draw, d, j, p2 + p_rest)
        return x2 + x_rest
    return rule


def _split(shape: tuple[int, ...], end: int | None) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """(part, rest, room) of shape(X)[:end]: the part, the dimensions after it, and whether the
    part can be lengthened."""
    shape = tuple(int(s) for s in shape)
    if end is not None and end < 0 and len(shape) < -end:
        return (), shape, False
    cut = len(shape[:end])
    return shape[:cut], shape[cut:], _room(shape, end)


def _clash(n: int) -> int:
    """A dimension that does not broadcast with n (n not 1): neither n nor 1."""
    return n + 1 if n >= 1 else 2


def _set_at(part: tuple[int, ...], k: int, value: int) -> tuple[int, ...]:
    """part with dimension -k set to value, leading 1s added where k is past its length."""
    out = [1] * max(0, k - len(part)) + list(part)
    out[-k] = value
    return tuple(out)


def _at_most_break(picked: Selection) -> ShapeRule:
    """One picked dimension of X one past its bound."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        pairs = list(zip(picked(env, len(shape)), np.asarray(rhs).reshape(-1).tolist()))
        if not pairs:
            return None
        k, bound = pairs[draw(st.integers(0, len(pairs) - 1))]
        shape[k] = int(bound) + 1
        return tuple(shape)
    return rule


def _at_least_all_break(picked: Selection) -> ShapeRule:
    """One picked dimension of X one below its bound (a bound of 0 or less cannot be broken)."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        pairs = [(k, b) for k, b in zip(picked(env, len(shape)), np.asarray(rhs).reshape(-1).tolist()) if b >= 1]
        if not pairs:
            return None
        k, bound = pairs[draw(st.integers(0, len(pairs) - 1))]
        shape[k] = int(bound) - 1
        return tuple(shape)
    return rule


_BREAKS: dict[str, ShapeRule | None] = {
    "shape": _break_shape, "size": _break_size, "size-at-most": _break_size_at_most, "rank": _break_rank,
    "broadcast": _break_broadcast, "unidirectional": _break_unidirectional,
    # the dimension forms: _dim_break; nonempty: _nonempty_break; at-most: _at_most_break
}


def breakers(spec: SpecVersion) -> dict[str, Callable]:
    """Relation id -> breaker(draw, draft): the shape of one of its fixes' targets moved just
    outside what the relation allows (an error relation's must-refuse case). A relation whose
    conjuncts the solver does not read has none here."""
    plan = compile_plan(spec)
    by_relation: dict[str, list[Fix]] = {}
    by_attribute: dict[str, list[Fix]] = {}
    for f in plan.fixes:
        if f.breaks is not None:
            (by_attribute if f.attribute else by_relation).setdefault(f.relation, []).append(f)
    out = {rid: _holding_the_rest(_attribute_breaker(fixes), plan, rid) for rid, fixes in by_attribute.items()}
    out.update({rid: _holding_the_rest(_breaker(fixes), plan, rid) for rid, fixes in by_relation.items()})
    return out


def _holding_the_rest(breaks: Callable, plan: Plan, relation: str) -> Callable:
    """The breaker, then the fixes of the other relations that read what it reshaped (MatMulInteger:
    A given a stack to break batch_broadcastable, its zero point per row of A reshaped to it),
    except those that would reshape an input the breaker changed: the case breaks its relation
    and no other, as value repair holds the value relations again after a break."""
    def breaker(draw, d: Draft) -> None:
        before = list(d.inputs)
        breaks(draw, d)
        changed = {d.spec.inputs[min(i, len(d.spec.inputs) - 1)].name
                   for i, x in enumerate(d.inputs) if i >= len(before) or x is not before[i]}
        if changed:
            plan.apply(draw, d, skip=lambda f: f.relation == relation or f.target in changed or not (f.reads & changed))
    return breaker


def _attribute_breaker(fixes: list[Fix]) -> Callable:
    """One of the relation's attribute fixes that applies sets its attribute to a value that breaks it."""
    def breaker(draw, d: Draft) -> None:
        env = specs.environment(d.spec, d.inputs, d.attributes)
        usable = [f for f in fixes if _applies(f, env)]
        if usable:
            f = usable[draw(st.integers(0, len(usable) - 1))]
            _set_attribute(draw, d, env, replace(f, rule=f.breaks))
    return breaker


def _breaker(fixes: list[Fix]) -> Callable:
    def breaker(draw, d: Draft) -> None:
        for f in fixes:  # an optional input the relation is about (SoftmaxCrossEntropyLoss's weights) is given
            i = d.port_index(f.target)
            if i < len(d.inputs) and d.inputs[i] is None and d.spec.inputs[i].optional and d.dtypes[i] is not None:
                d.present[i] = True
                _redraw(draw, d, i, draw(shapes.shapes(draw(shapes.ranks(d.spec.inputs[i], d.profile)), d.profile)))
                break
        env = specs.environment(d.spec, d.inputs, d.attributes)
        usable = [f for f in fixes if d.inputs[d.port_index(f.target)] is not None and _applies(f, env)]
        if not usable:
            return
        f = usable[draw(st.integers(0, len(usable) - 1))]
        i = d.port_index(f.target)
        shape = _new_shape(f.breaks, draw, d, env, i, f.rhs)
        if shape is not None and _rank_allowed(d, i, len(shape)):
            _redraw(draw, d, i, shape)
    return breaker


# ------------------------------------------------------------------ compiling
_SHAPE_ONLY = {"shape", "rank", "size", "len", "dtype", "present"}


# id(spec) -> (weak reference to spec, its plan): the steps, breakers and every relation's
# must-refuse strategy ask for the plan, and compiling it deep-copies the relations' trees
_PLANS: dict[int, tuple[weakref.ref, Plan]] = {}


def compile_plan(spec: SpecVersion) -> Plan:
    """The fixes of a spec version's relations, in dependency order (see the module text);
    compiled once per spec version object."""
    key = id(spec)
    entry = _PLANS.get(key)
    if entry is not None and entry[0]() is spec:
        return entry[1]
    plan = _compile(spec)
    _PLANS[key] = (weakref.ref(spec, lambda _, key=key: _PLANS.pop(key, None)), plan)
    return plan


@dataclass(frozen=True)
class _Names:
    """What a conjunct may name: the spec's non-variadic inputs, and its attributes with their
    defaults and, for those with few values to choose from (listed ones, and ints with a range),
    env -> those values."""

    inputs: tuple[str, ...]
    defaults: dict[str, Any]
    choices: dict[str, Callable[[dict], Sequence[Any]]]


def _compile(spec: SpecVersion) -> Plan:
    names = _Names(tuple(p.name for p in spec.inputs if not p.variadic), {a.name: a.default for a in spec.attributes},
                   {a.name: c for a in spec.attributes if (c := _choices(a)) is not None})
    parts = conjuncts(spec)
    implied = _implied_broadcasts(parts)
    found: list[Fix] = []
    for rid, when, part in parts:
        if id(part) not in implied:
            found.extend(_fixes(rid, part, when, names))
    return Plan(_ordered(found))


_MOST_CHOICES = 64  # an int range wider than this is not enumerated


def _choices(a) -> Callable[[dict], Sequence[Any]] | None:
    """env -> the values an attribute may take: its listed ones, or the ints of its range (both
    bounds given, as constants or expressions: an axis in -rank(X) .. rank(X) - 1)."""
    if a.allowed:
        return lambda env, listed=tuple(a.allowed): listed
    if a.type != "int" or a.range is None or None in a.range:
        return None
    lo, hi = (expr.compiled(str(b)) for b in a.range)

    def ints(env: dict) -> Sequence[int]:
        first, last = int(lo(env)), int(hi(env))
        return range(first, last + 1) if last - first < _MOST_CHOICES else ()
    return ints


def conjuncts(spec: SpecVersion) -> list[tuple[str, Callable[[dict], Any] | None, ast.AST]]:
    """(relation id, its compiled `when`, one conjunct of its check with the spec's symbols
    substituted) for every relation that parses: what the solver and value repair read."""
    symbols = _symbol_trees(spec)
    out = []
    for r in spec.relations:
        try:
            body = _substitute(expr.parse(r.check).body, symbols)
            when = None if r.when is None else expr.compiled(r.when)
        except expr.ExprError:
            continue
        out += [(r.id, when, part) for part in _and_parts(body)]
    return out


def _and_parts(node: ast.AST) -> list[ast.AST]:
    return list(node.values) if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]


def _symbol_trees(spec: SpecVersion) -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}
    for name, text in spec.symbols.items():
        try:
            out[name] = _substitute(expr.parse(text).body, out)  # a symbol may use earlier ones
        except expr.ExprError:
            continue
    return out


class _Substitute(ast.NodeTransformer):
    def __init__(self, trees: dict[str, ast.AST]):
        self.trees = trees

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.trees:
            return node
        tree = copy.deepcopy(self.trees[node.id])
        for n in ast.walk(tree):  # placed where the symbol is written (value repair reads names in text order)
            if hasattr(n, "col_offset"):
                n.lineno, n.col_offset = node.lineno, node.col_offset
        return tree


def _substitute(node: ast.AST, trees: dict[str, ast.AST]) -> ast.AST:
    """node with the symbols replaced by their trees (a copy; node itself when it names none:
    copying every relation's tree cost more than the rest of compiling the plan)."""
    if not trees or not any(isinstance(n, ast.Name) and n.id in trees for n in ast.walk(node)):
        return node
    return ast.fix_missing_locations(_Substitute(trees).visit(copy.deepcopy(node)))


def _call(node: ast.AST, *names: str) -> str | None:
    """The input a call like shape(X) / size(X) reads, when node is such a call of a plain name."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name)):
        return node.args[0].id
    return None


def _function(node: ast.AST, name: str, arity: int) -> list[ast.AST] | None:
    """The arguments of a call name(...) of that many arguments, else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == name and len(node.args) == arity:
        return list(node.args)
    return None


def _constant_index(node: ast.AST) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _shape_index(node: ast.AST) -> tuple[str, Index] | None:
    """(X, k) for `shape(X)[k]` with a constant k, or for `(shape(X)[i] if c else shape(X)[j])`
    (the index then chosen by c: Gemm's M, K and N under transA and transB)."""
    if isinstance(node, ast.Subscript) and (x := _call(node.value, "shape")):
        k = _constant_index(node.slice)
        return None if k is None else (x, lambda env, k=k: k)
    if isinstance(node, ast.IfExp):
        yes, no = _shape_index(node.body), _shape_index(node.orelse)
        if yes and no and yes[0] == no[0]:
            test, i, j = _compiled(node.test), yes[1], no[1]
            return yes[0], lambda env: i(env) if test(env) else j(env)
    return None


def _compiled(node: ast.AST) -> Callable[[dict], Any]:
    return expr.compiled(ast.unparse(node))


def _input_names(node: ast.AST, inputs: Sequence[str]) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in inputs}


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _unidirectional(part: ast.AST) -> tuple[str, ast.AST] | None:
    """(Y, E) for `broadcast_shape(E, shape(Y)) == E` or `broadcast_shape(shape(Y), E) == E`
    (either side of ==): Y unidirectionally broadcastable to E."""
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)):
        return None
    for lhs, rhs in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
        args = _function(lhs, "broadcast_shape", 2)
        if args is None:
            continue
        for to, other in ((args[0], args[1]), (args[1], args[0])):
            if (y := _call(other, "shape")) and _same(to, rhs) and not _same(to, other):
                return y, to
    return None


def _implied_broadcasts(parts: list[tuple[str, Any, ast.AST]]) -> set[int]:
    """The `broadcastable(shape(Y), E)` conjuncts (either order) of a relation that also says Y
    unidirectionally broadcastable to E: the latter's fix makes both hold, and fitting E's input
    to Y instead (the last shape of broadcastable) would reshape what Y was fitted to
    (LayerNormalization's X, against Scale and B)."""
    said: dict[str, set[tuple[str, str]]] = {}
    for rid, _, part in parts:
        if u := _unidirectional(part):
            said.setdefault(rid, set()).add((u[0], ast.dump(u[1])))
    out = set()
    for rid, _, part in parts:
        args = _function(part, "broadcastable", 2)
        if args is None:
            continue
        for y_arg, to in ((args[0], args[1]), (args[1], args[0])):
            if (y := _call(y_arg, "shape")) and (y, ast.dump(to)) in said.get(rid, set()):
                out.add(id(part))
    return out


def _fixes(rid: str, part: ast.AST, when, names: _Names) -> list[Fix]:
    """The fixes of one conjunct (none when it has no form the solver knows)."""
    if isinstance(part, ast.BoolOp) and isinstance(part.op, ast.Or):
        fix = _disjunction(rid, part, when, names) or _allowed_choice(rid, part, when, names, _compiled(part))
        return [] if fix is None else [fix]
    fix = _fix(rid, part, when, names)
    return fix if isinstance(fix, list) else [] if fix is None else [fix]


def _fix(rid: str, part: ast.AST, when, names: _Names) -> Fix | list[Fix] | None:
    inputs = names.inputs
    check = _compiled(part)

    def make(form: str, target: str, rhs: ast.AST | None, rule: ShapeRule, breaks: ShapeRule | None = None,
             also_reads: ast.AST | None = None) -> Fix | None:
        if target not in inputs:
            return None
        reads = set(_input_names(rhs, inputs)) if rhs is not None else set()
        reads |= _input_names(also_reads, inputs) if also_reads is not None else set()
        own_dim = form == "dim" and _shape_index(rhs) is not None  # Det: shape(X)[-1] == shape(X)[-2]
        # TensorScatter: update's shape is past_cache's but for its own sequence dimension
        own_dim = own_dim or (form == "shape" and target not in _input_names(_OwnDimsOut(target).visit(copy.deepcopy(rhs)), inputs))
        if rhs is not None and target in _input_names(rhs, inputs) and not own_dim:
            return None  # X on both sides: not solved for X
        return Fix(rid, form, target, frozenset(reads - {target}), when, check,
                   None if rhs is None else _compiled(rhs), rule, breaks or _BREAKS.get(form))

    if u := _unidirectional(part):  # Y unidirectionally broadcastable to E
        return make("unidirectional", u[0], u[1], _unidirectional_rule)
    if fix := (_integral(rid, part, when, names, check) or _listed_value(rid, part, when, names, check)
               or _exactly_one(rid, part, when, names, check)):
        return fix
    if fix := _at_most(rid, part, when, inputs, check):
        return fix
    if isinstance(part, ast.Compare) and len(part.ops) == 1:
        left, op, right = part.left, part.ops[0], part.comparators[0]
        if isinstance(op, ast.Eq):
            for lhs, rhs in ((left, right), (right, left)):
                if x := _call(lhs, "shape"):
                    return make("shape", x, rhs, _set_shape)
                if xk := _shape_index(lhs):
                    return make("dim", xk[0], rhs, _dim_rule(xk[1], multiple=False), _dim_break(xk[1], "dim"),
                                also_reads=lhs)
                if x := _call(lhs, "size", "len"):
                    return make("size", x, rhs, _size_rule(at_most=False))
                if x := _call(lhs, "rank"):
                    return make("rank", x, rhs, _rank_rule)
                if (isinstance(lhs, ast.BinOp) and isinstance(lhs.op, ast.Mod) and isinstance(rhs, ast.Constant)
                        and rhs.value == 0 and (xk := _shape_index(lhs.left))):
                    return make("multiple", xk[0], lhs.right, _dim_rule(xk[1], multiple=True),
                                _dim_break(xk[1], "multiple"), also_reads=lhs.left)
        if isinstance(op, ast.NotEq):
            for lhs, rhs in ((left, right), (right, left)):
                if x := _call(lhs, "rank"):
                    return make("rank-not", x, rhs, _other_rank_rule, _rank_rule)
        if isinstance(op, ast.LtE) and (x := _call(left, "size", "len")):
            return make("size-at-most", x, right, _size_rule(at_most=True))
        if isinstance(op, (ast.GtE, ast.Gt)) and isinstance(right, ast.Constant) and isinstance(right.value, int):
            floor = right.value if isinstance(op, ast.GtE) else right.value + 1
            if xk := _shape_index(left):
                return make("dim-at-least", xk[0], None, _at_least_rule(xk[1], floor),
                            _dim_break(xk[1], "at-least", floor), also_reads=left)
            if x := _call(left, "rank"):
                return make("rank-at-least", x, None, _rank_at_least_rule(floor), _rank_below_break(floor))
            if floor == 1 and (x := _call(left, "size")):
                whole: Part = lambda env: (None, None)  # noqa: E731
                return make("nonempty", x, None, _nonempty_rule(whole), _nonempty_break(whole))
            if floor == 1 and (prod := _function(left, "prod", 1)) and (found := _part(prod[0])):
                x, part_of = found
                return make("nonempty", x, None, _nonempty_rule(part_of), _nonempty_break(part_of),
                            also_reads=prod[0])
    if isinstance(part, ast.Call) and getattr(part.func, "id", "") == "broadcastable" and len(part.args) >= 2:
        # the last shape is fitted to the broadcast of the others (Where: Y to condition and X);
        # a conjunct of three or more gets one fix per later shape, see _broadcast_fixes
        return _broadcast_fixes(part, make)
    return _allowed_choice(rid, part, when, names, check)


def _part(node: ast.AST) -> tuple[str, Part] | None:
    """(X, part) for `shape(X)[a:b]`, a and b constants or expressions (of X's rank, attributes)."""
    if not (isinstance(node, ast.Subscript) and (x := _call(node.value, "shape")) and isinstance(node.slice, ast.Slice)
            and node.slice.step is None):
        return None
    bounds = [None if b is None else _compiled(b) for b in (node.slice.lower, node.slice.upper)]

    def part(env: dict) -> tuple[int | None, int | None]:
        lo, hi = (None if b is None else int(b(env)) for b in bounds)
        return lo, hi
    return x, part


def _integral(rid: str, part: ast.AST, when, names: _Names, check) -> Fix | None:
    """`a == floor(a)` (either side) for an attribute a: a fix setting a."""
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)):
        return None
    for lhs, rhs in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
        arg = _function(rhs, "floor", 1)
        if (isinstance(lhs, ast.Name) and lhs.id in names.defaults and arg and isinstance(arg[0], ast.Name)
                and arg[0].id == lhs.id):
            return Fix(rid, "integral", lhs.id, frozenset(), when, check, None,
                       _integral_rule(lhs.id, names.defaults[lhs.id]), None, attribute=True)
    return None


def _listed_value(rid: str, part: ast.AST, when, names: _Names, check) -> Fix | None:
    """`a in (v1, v2, ..)` for a scalar attribute a and constants: a fix setting a to one of them
    (HannWindow's periodic, an int the text reads as a flag: 0 or 1)."""
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.In)
            and isinstance(part.left, ast.Name) and part.left.id in names.defaults
            and isinstance(part.comparators[0], (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Constant) for e in part.comparators[0].elts) and part.comparators[0].elts):
        return None
    options = tuple(e.value for e in part.comparators[0].elts)
    return Fix(rid, "one-of", part.left.id, frozenset(), when, check, None, _listed_rule(options), None, attribute=True)


def _exactly_one(rid: str, part: ast.AST, when, names: _Names, check) -> Fix | None:
    """`present(a) + .. + present(b) == 1` (either side) over attributes: a fix keeping one of them
    given and leaving the others out, and a breaker giving none or two. A bare `present(a)` is the
    sum of one (Scaler's offset: drawn absent half the time, every such draft was rejected)."""
    if _present_sum(part) is not None and len(_present_sum(part)) == 1:
        part = ast.Compare(left=part, ops=[ast.Eq()], comparators=[ast.Constant(1)])
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)):
        return None
    for lhs, rhs in ((part.left, part.comparators[0]), (part.comparators[0], part.left)):
        named = _present_sum(lhs)
        if named and isinstance(rhs, ast.Constant) and rhs.value == 1 and set(named) <= set(names.defaults):
            return Fix(rid, "exactly-one", named[0], frozenset(), when, check, None,
                       _exactly_one_rule(rid, tuple(named), holding=True), _exactly_one_rule(rid, tuple(named), holding=False),
                       attribute=True)
        if named and isinstance(rhs, ast.Constant) and rhs.value == 1 and set(named) <= set(names.inputs):
            return Fix(rid, "exactly-one", named[0], frozenset(), when, check, None,
                       _one_input_rule(tuple(named), holding=True), _one_input_rule(tuple(named), holding=False),
                       attribute=True)
    return None


@dataclass(frozen=True)
class Presence:
    """An attribute-pass rule's answer that gives (True) or leaves out (False) optional inputs."""

    given: dict[str, bool]


def _one_input_rule(named: tuple[str, ...], holding: bool) -> AttributeRule:
    """Exactly one of these optional inputs given: the one the row pins given, else one already
    given, else one drawn (never one the row pins absent); the breaker gives none or two."""
    def rule(draw, d, env, i, rhs):
        ports = {n: d.spec.inputs[d.port_index(n)] for n in named}
        if not all(p.optional for p in ports.values()):
            return None
        given = [n for n in named if d.inputs[d.port_index(n)] is not None]
        if not holding:
            if len(named) < 2 or draw(st.booleans()):
                return Presence(dict.fromkeys(named, False))
            two = draw(st.permutations(list(named)))[:2]
            return Presence({n: n in two for n in named})
        pin = {n: pins.pinned(d, f"input:{n}") for n in named}
        must = [n for n in named if pin[n] is not pins.UNPINNED and pin[n]]
        free = [n for n in named if pin[n] is pins.UNPINNED or pin[n]]
        if len(must) > 1 or not free:
            return None
        keep = must[0] if must else (given[0] if given else draw(st.sampled_from(free)))
        return Presence({n: n == keep for n in named})
    return rule


def _present_sum(node: ast.AST) -> list[str] | None:
    """The names a sum of `present(name)` calls reads, in order; None for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _present_sum(node.left), _present_sum(node.right)
        return None if left is None or right is None else left + right
    arg = _function(node, "present", 1)
    return [arg[0].id] if arg and isinstance(arg[0], ast.Name) else None


def _exactly_one_rule(rid: str, named: tuple[str, ...], holding: bool) -> AttributeRule:
    def rule(draw, d, env, i, rhs):
        pinned = {n: pins.pinned(d, f"attr:{n}") for n in named}
        given = [n for n in named if d.attributes.get(n) is not None]
        must = [n for n in named if pinned[n] not in (pins.UNPINNED, OMITTED)]  # the row pins it given
        free = [n for n in named if pinned[n] is not OMITTED]
        if not holding:  # none given, or a second one
            if not given or len(named) < 2 or draw(st.booleans()):
                return Attributes(dict.fromkeys(named))
            keep = draw(st.sampled_from(given))
            second = draw(st.sampled_from([n for n in named if n != keep]))
            return Attributes({second: _drawn_value(draw, d, second)})
        if len(must) > 1 or not free:
            return None
        # one under which the relations about it hold (TfIdfVectorizer: pool_strings for string
        # input): the given ones first, then the others in a drawn order, each value drawn when tried
        options = must or free
        order = draw(st.permutations([n for n in options if n in given])) + draw(st.permutations([n for n in options if n not in given]))
        keep, value = None, None
        for n in order:
            v = d.attributes[n] if n in given else _drawn_value(draw, d, n)
            if keep is None:
                keep, value = n, v  # what is kept when none fits
            if _fits(d, rid, n, v, named):
                keep, value = n, v
                break
        out: dict[str, Any] = {n: None for n in named if n != keep}
        out[keep] = value
        return Attributes(out)
    return rule


def _fits(d: Draft, rid: str, name: str, value: Any, named: tuple[str, ...]) -> bool:
    """Whether no relation other than `rid` that names attribute `name` is broken with it given
    alone of `named`."""
    trial = {k: v for k, v in d.attributes.items() if k not in named}
    trial[name] = value
    word = re.compile(rf"\b{re.escape(name)}\b")
    about = {r.id for r in d.spec.relations if r.id != rid and (word.search(r.check) or (r.when and word.search(r.when)))}
    return not any(st_.id in about and st_.state == "broken" for st_ in specs.check_all(d.spec, d.inputs, trial))


def _drawn_value(draw, d: Draft, name: str) -> Any:
    """A value of attribute `name` as the steps draw one (an empty list, which an ONNX node cannot
    hold, excluded)."""
    from opconform.generator.families.default import attribute_value  # the default steps draw values

    return draw(attribute_value(d.spec.attribute(name), nonempty=True))


def _listed_rule(options: tuple) -> AttributeRule:
    def rule(draw, d, env, i, rhs):
        return draw(st.sampled_from(options))
    return rule


class _OwnDimsOut(ast.NodeTransformer):
    """shape(X)[k] (k not a slice) replaced by a constant: what is left names X when an expression
    reads more of X than single dimensions of its current shape."""

    def __init__(self, x: str):
        self.x = x

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if _call(node.value, "shape") == self.x and not isinstance(node.slice, ast.Slice):
            return ast.Constant(0)
        return self.generic_visit(node)


class _TypesOut(ast.NodeTransformer):
    """dtype(X), present(X) and rank(X) replaced by a constant: what is left names no input when a
    conjunct reads of the inputs only their element types, presence and ranks."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if (getattr(node.func, "id", "") in ("dtype", "present", "rank") and len(node.args) == 1
                and isinstance(node.args[0], ast.Name)):
            return ast.Constant(0)
        return self.generic_visit(node)


def _allowed_choice(rid: str, part: ast.AST, when, names: _Names, check) -> Fix | None:
    """A conjunct of no other form that reads one attribute with few values (listed, or an int
    range) and otherwise only element types, presence, ranks, other attributes, constants and
    function names (BitCast: the bit width `to` names equals the input's; TensorScatter: the axis
    is not the batch dimension): a fix setting the attribute to one of its values under which the
    conjunct holds, and a breaker setting one under which it fails."""
    rest = {n.id for n in ast.walk(_TypesOut().visit(copy.deepcopy(part))) if isinstance(n, ast.Name)}
    chosen = [a for a in rest if a in names.choices]
    if len(chosen) != 1 or rest & set(names.inputs) or rid == f"{chosen[0]}_range":
        return None  # an attribute's own range: its values hold it, none breaks it
    target = chosen[0]
    options = names.choices[target]

    def choose(holding: bool) -> AttributeRule:
        def rule(draw, d, env, i, rhs):
            fit = [v for v in options(env) if _judged(check, {**env, target: v}) is holding and _keeps_pin(d, target, v)]
            return draw(st.sampled_from(fit)) if fit else None
        return rule
    return Fix(rid, "choice", target, frozenset(), when, check, None, choose(True), choose(False), attribute=True)


def _keeps_pin(d: Draft, name: str, value: Any) -> bool:
    """Whether setting attribute `name` to `value` keeps the class the draft's row pins for it
    (any value when unpinned; none when the row pins it omitted)."""
    pin = pins.pinned(d, f"attr:{name}")
    return pin is pins.UNPINNED or exercised.attribute_class(d.spec.attribute(name), [pin], value) is pin


def _judged(test: Callable[[dict], Any], env: dict) -> bool | None:
    """The test's truth on env, or None where it cannot be evaluated."""
    try:
        return bool(np.all(test(env)))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None


class _RankOut(ast.NodeTransformer):
    """rank(X) replaced by a constant: what else of X an expression reads."""

    def __init__(self, x: str):
        self.x = x

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if _call(node, "rank") == self.x:
            return ast.Constant(0)
        return self.generic_visit(node)


def _shapes_named(node: ast.AST) -> set[str]:
    return {x for n in ast.walk(node) if (x := _call(n, "shape"))}


def _at_most(rid: str, part: ast.AST, when, inputs: Sequence[str], check) -> Fix | None:
    """`all(asarray(P) <= asarray(Q))` where P selects dimensions of X and Q does not read X:
    the dimensions of X that P selects are at most Q's, element by element -- Q being P with X
    renamed to another input D (GatherElements' indices off the axis), or any bound of other
    inputs and attributes (Conv's kernel extents within the padded input, per dilation)."""
    arg = _function(part, "all", 1)
    if not (arg and isinstance(arg[0], ast.Compare) and len(arg[0].ops) == 1 and isinstance(arg[0].ops[0], (ast.LtE, ast.GtE))):
        return None
    p, q = _function(arg[0].left, "asarray", 1), _function(arg[0].comparators[0], "asarray", 1)
    if not (p and q and len(xs := _shapes_named(p[0])) == 1):
        return None
    (x,) = xs
    if x not in inputs or x in _input_names(_RankOut(x).visit(copy.deepcopy(q[0])), inputs):
        return None  # Q may read X's rank (a pool's spatial count), which the fix keeps
    picked = _selection(x, p[0])
    reads = (_input_names(p[0], inputs) | _input_names(q[0], inputs)) - {x}
    if isinstance(arg[0].ops[0], ast.GtE):  # at least Q: a pool's input holding its dilated kernel
        return Fix(rid, "at-least", x, frozenset(reads), when, check, _compiled(q[0]), _at_least_all_rule(picked),
                   _at_least_all_break(picked))
    return Fix(rid, "at-most", x, frozenset(reads), when, check, _compiled(q[0]), _at_most_rule(picked),
               _at_most_break(picked))


def _selection(x: str, node: ast.AST) -> Selection:
    """The dimensions of X (in order) that an expression of shape(X) such as
    `shape(X)[:a] + shape(X)[a + 1:]` selects: evaluated on a stand-in for X whose dimensions are
    their own positions (0, 1, .., r - 1: an array of no elements), then checked against the
    expression's value on the draft, so an expression that computes with the dimensions
    (shape(X)[0] * 2) selects nothing rather than the wrong ones."""
    compiled = _compiled(node)

    def picked(env: dict, rank: int) -> list[int]:
        positions = [int(k) for k in compiled({**env, x: np.empty(tuple(range(rank)))})]
        actual = tuple(int(v) for v in compiled(env))
        if tuple(_shape_of(env[x])[k] for k in positions) != actual:
            raise ValueError(f"not a selection of shape({x})")
        return positions
    return picked


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in np.shape(x))


# forms that only rule one value out: in a disjunction they are guards (GatherElements'
# `rank(indices) != rank(data) or ...` says when the rest applies), never fixes
_GUARD_FORMS = {"rank-not"}


def _disjunction(rid: str, part: ast.BoolOp, when, names: _Names) -> Fix | None:
    """`G or .. or D`: see the module text. The input X is the one most disjuncts have fixes for
    (the last such disjunct's on a tie); a disjunct's conjuncts without a fix for X are its guards."""
    options: list[tuple[list[Fix], list[Callable[[dict], Any]], list[ast.AST]]] = []
    per_disjunct: list[list[tuple[ast.AST, list[Fix]]]] = [
        [(c, [f for f in _fixes(rid, c, None, names) if not f.attribute and f.form not in _GUARD_FORMS])
         for c in _and_parts(v)] for v in part.values]
    counts: dict[str, tuple[int, int]] = {}
    for k, entries in enumerate(per_disjunct):
        for t in sorted({f.target for _, fs in entries for f in fs}):  # sorted: a tie must not follow hash order
            counts[t] = (counts.get(t, (0, 0))[0] + 1, k)
    if not counts:
        return None
    x = max(counts, key=lambda t: counts[t])
    for entries in per_disjunct:
        fixes = [f for _, fs in entries for f in fs if f.target == x]
        guards = [c for c, fs in entries if not any(f.target == x for f in fs)]
        if fixes:
            options.append((fixes, [_compiled(g) for g in guards], guards))
    reads = set().union(*(f.reads for fixes, _, _ in options for f in fixes))
    reads |= set().union(*(_input_names(g, names.inputs) for _, _, gs in options for g in gs))
    check = _compiled(part)
    return Fix(rid, "any", x, frozenset(reads - {x}), when, check, None,
               _one_of([(fixes, guards) for fixes, guards, _ in options], x),
               _break_all_of([f for fixes, _, _ in options for f in fixes if f.breaks is not None], check, x))


def _one_of(options: list[tuple[list[Fix], list[Callable[[dict], Any]]]], x: str) -> ShapeRule:
    """One of the disjuncts whose guards hold, drawn, and its fixes applied in turn to X's shape."""
    def rule(draw, d, env, i, rhs):
        ready = [fixes for fixes, guards in options if all(_true(g, env) for g in guards)]
        if not ready:
            return None
        shape = d.inputs[i].shape
        for f in ready[draw(st.integers(0, len(ready) - 1))]:
            here = {**env, x: _stand_in(d, i, shape)}
            if f.form not in _RANGES and _holds(f, here):
                continue
            shape = _on_shape(f.rule, draw, d, here, i, None if f.rhs is None else f.rhs(here), shape)
            if shape is None:
                return None
        return shape
    return rule


def _break_all_of(fixes: list[Fix], check: Callable[[dict], Any], x: str) -> ShapeRule | None:
    """X's shape moved just outside one disjunct (that disjunct's breaker, guards aside), kept
    only where no other disjunct holds either: the first of a few disjuncts drawn in turn that
    breaks the whole disjunction (a 0-D scale made a vector of the wrong length for the axis)."""
    if not fixes:
        return None

    def rule(draw, d, env, i, rhs):
        shape = d.inputs[i].shape
        for f in draw(st.permutations(fixes))[:4]:
            here = {**env, x: _stand_in(d, i, shape)}
            try:
                moved = _on_shape(f.breaks, draw, d, here, i, None if f.rhs is None else f.rhs(here), shape)
            except (expr.ExprError, TypeError, ValueError, IndexError):
                continue
            if moved is None or any(int(s) < 0 for s in moved):
                continue
            after = {**specs.environment(d.spec, [_stand_in(d, i, moved) if k == i else v for k, v in enumerate(d.inputs)],
                                         d.attributes)}
            try:
                if not bool(np.all(check(after))):
                    return moved
            except (expr.ExprError, TypeError, ValueError, IndexError):
                continue  # unevaluable is not broken
        return None
    return rule


def _broadcast_fixes(part: ast.Call, make) -> Fix | list[Fix] | None:
    shapes_of = [_shape_or_prefix(a) for a in part.args]
    if not all(shapes_of):
        return None
    out = []
    for k in range(1, len(part.args)):
        before = part.args[0] if k == 1 else ast.Call(ast.Name("broadcast_shape", ast.Load()), list(part.args[:k]), [])
        x, end = shapes_of[k]
        # two shapes: either may be moved to break them; more: the later one against the others
        breaks = _pair_break(shapes_of[0], end) if len(part.args) == 2 else _leading(_break_broadcast, end)
        fix = make("broadcast", x, ast.fix_missing_locations(before), _leading(_broadcast_rule, end), breaks)
        if fix is not None:
            out.append(fix)
    return out or None


def _shape_or_prefix(node: ast.AST) -> tuple[str, int | None] | None:
    """(X, None) for shape(X); (X, end) for shape(X)[:end] with a constant end (MatMul's stacks)."""
    if x := _call(node, "shape"):
        return x, None
    if isinstance(node, ast.Subscript) and (x := _call(node.value, "shape")) and isinstance(node.slice, ast.Slice):
        sl = node.slice
        if sl.lower is None and sl.step is None and sl.upper is not None:
            try:
                return x, int(ast.literal_eval(sl.upper))
            except (ValueError, TypeError):
                return None
    return None


def _ordered(fixes: list[Fix]) -> tuple[Fix, ...]:
    """Attribute fixes first (shape relations may read attributes); then fixes setting an input
    before the fixes reading it, otherwise in spec order (a cycle keeps the rest in spec order)."""
    out: list[Fix] = [f for f in fixes if f.attribute]
    left = [f for f in fixes if not f.attribute]
    while left:
        pending = {f.target for f in left}
        ready = next((f for f in left if not (f.reads & pending)), left[0])
        out.append(ready)
        left.remove(ready)
    return tuple(out)

