"""The relation solver: a spec's shape relations of a few invertible forms, compiled once per spec
version into fixes that set one input's shape from what is already drawn.

    >>> plan = compile_plan(spec)     # once per spec version
    >>> plan.apply(draw, d)           # after the steps: each broken relation of these forms is made to hold

The forms (`X` an input, `E` any expression of other inputs' shapes, attributes and constants;
symbols are substituted first, so `C % num_groups == 0` with `C: shape(X)[1]` is the third form):

    shape(X) == E              X gets shape E
    shape(X)[k] == E           dimension k of X becomes E
    shape(X)[k] % E == 0       dimension k of X becomes a multiple of E
    size(X) == E, len(X) == E  X gets E elements (rank kept where it can hold them)
    size(X) <= E, len(X) <= E  X's first dimension drawn so that it holds 0 .. E elements
    rank(X) == E               X is drawn again with rank E
    prod(shape(X)[a:b]) >= 1   the zero dimensions of that part become 1 (also size(X) >= 1, > 0)
    shape(X)[k] >= c           dimension k of X becomes at least c (a constant)
    broadcast_shape(shape(A), shape(X)) == shape(A)   X no longer than A, each dimension A's or 1
    broadcastable(shape(A), .., shape(X))   X's dimensions that clash with the broadcast of the
                               others become theirs or 1 (each later shape in turn)

Either side of `==` may hold X. Fixes run in an order where a fix that sets X comes before every
fix that reads X (GroupNormalization: X's channel count is made a multiple of num_groups before
scale and bias are given size C). An input a fix reshapes is drawn again at its new shape (and
given its row's value class again). Every other relation, and any relation a fix could not make
hold, stays a filter: the draft's relations are all checked afterwards, as before.
"""
from __future__ import annotations

import ast
import copy
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

from opconform import specs
from opconform.generator import pins, shapes
from opconform.generator.draft import Draft
from opconform.model import SpecVersion
from opconform.specs import expr

# (draw, draft, env, target input index, evaluated right-hand side) -> the new shape, or None to leave it
ShapeRule = Callable[[Any, Draft, dict, int, Any], "tuple[int, ...] | None"]


@dataclass(frozen=True)
class Fix:
    """One relation conjunct the solver can make hold by reshaping `target`."""

    relation: str
    form: str
    target: str
    reads: frozenset[str]  # other inputs whose shapes the right-hand side reads
    when: Callable[[dict], Any] | None
    check: Callable[[dict], Any]  # the conjunct itself
    rhs: Callable[[dict], Any] | None
    rule: ShapeRule
    breaks: ShapeRule  # the shape just outside what the relation allows (None: cannot be broken this way)


@dataclass(frozen=True)
class Plan:
    fixes: tuple[Fix, ...]

    def apply(self, draw, d: Draft) -> None:
        """Make each broken conjunct of the plan hold, in the plan's order."""
        if not self.fixes:
            return
        env = specs.environment(d.spec, d.inputs, d.attributes)
        for f in self.fixes:
            i = d.port_index(f.target)
            if i >= len(d.inputs) or d.inputs[i] is None or not _applies(f, env):
                continue
            if f.form not in _RANGES and _holds(f, env):
                continue  # an equality that holds: nothing to draw
            try:
                rhs = None if f.rhs is None else f.rhs(env)
                shape = f.rule(draw, d, env, i, rhs)
            except (expr.ExprError, TypeError, ValueError, IndexError):
                continue
            if shape is None or any(s < 0 for s in shape) or not _rank_allowed(d, i, len(shape)):
                continue
            _redraw(draw, d, i, tuple(int(s) for s in shape))
            env = specs.environment(d.spec, d.inputs, d.attributes)


def _applies(f: Fix, env: dict) -> bool:
    try:
        return f.when is None or bool(f.when(env))
    except expr.ExprError:
        return False


def _holds(f: Fix, env: dict) -> bool:
    try:
        return bool(np.all(f.check(env)))
    except expr.ExprError:
        return False  # e.g. an index past the rank: reshaping may make it evaluable


def _rank_allowed(d: Draft, i: int, rank: int) -> bool:
    p = d.spec.inputs[min(i, len(d.spec.inputs) - 1)]
    return rank >= p.rank_min and (p.rank_max is None or rank <= p.rank_max)


def _redraw(draw, d: Draft, i: int, shape: tuple[int, ...]) -> None:
    from opconform.generator.families.default import input_array  # the default steps draw arrays

    d.inputs[i] = input_array(draw, d, i, shape=shape)
    pins.input_values(draw, d, i)


# ------------------------------------------------------------------ shape rules
def _set_shape(draw, d, env, i, rhs):
    return tuple(int(v) for v in np.asarray(rhs).reshape(-1))


def _dim_rule(k: int, multiple: bool) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        if not -len(shape) <= k < len(shape):
            return None
        want = int(rhs)
        if multiple:
            if want < 1:
                return None
            want *= draw(st.integers(1, max(1, 2 if want <= d.profile.max_side else 1)))
        shape[k] = want
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
        if len(shape) == 0 or (n == 1 and d.spec.inputs[min(i, len(d.spec.inputs) - 1)].rank_min == 0):
            return () if n == 1 else (n,)  # one element: a scalar where the port allows (CumSum's axis)
        return (n,) + (1,) * (len(shape) - 1)
    return rule


def _rank_rule(draw, d, env, i, rhs):
    return draw(shapes.shapes(int(rhs), d.profile))


def _at_least_rule(k: int, floor: int) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        if not -len(shape) <= k < len(shape):
            return None
        shape[k] = max(shape[k], floor)
        return tuple(shape)
    return rule


def _nonempty_rule(lo: int | None, hi: int | None) -> ShapeRule:
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        part = range(len(shape))[slice(lo, hi)]
        for k in part:
            shape[k] = max(shape[k], 1)
        return tuple(shape)
    return rule


def _unidirectional_rule(draw, d, env, i, rhs):
    """Y fitted to broadcast to A without changing A: no longer than A, each dimension A's or 1."""
    a, y = [int(v) for v in np.asarray(rhs).reshape(-1)], list(d.inputs[i].shape)
    y = y[len(y) - min(len(y), len(a)):]
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
        return None if head is None else tuple(head) + tuple(full[cut:])
    return on_prefix


def _on_shape(rule: ShapeRule, draw, d, env, i, rhs, shape: tuple) -> tuple | None:
    saved = d.inputs[i]
    d.inputs[i] = np.empty(shape, dtype=saved.dtype)  # the rule reads the shape only
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


def _dim_break(k: int, how: str, floor: int = 0) -> ShapeRule:
    """Dimension k moved just outside: one past E ("dim"), not a multiple of E ("multiple"), one
    below the floor ("at-least")."""
    def rule(draw, d, env, i, rhs):
        shape = list(d.inputs[i].shape)
        if not -len(shape) <= k < len(shape):
            return None
        if how == "dim":
            shape[k] = int(rhs) + 1
        elif how == "multiple":
            e = int(rhs)
            if e < 2:
                return None  # every size is a multiple of 1
            shape[k] = e * draw(st.integers(0, 1)) + draw(st.integers(1, e - 1))
        elif floor >= 1:
            shape[k] = floor - 1
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


def _break_nonempty(draw, d, env, i, rhs):
    shape = list(d.inputs[i].shape)
    if not shape:
        return None
    shape[draw(st.integers(0, len(shape) - 1))] = 0
    return tuple(shape)


def _break_broadcast(draw, d, env, i, rhs):
    a, x = np.asarray(rhs).reshape(-1).tolist(), list(d.inputs[i].shape)
    clash = [k for k in range(1, min(len(a), len(x)) + 1) if a[-k] > 1]
    if not clash:
        return None
    k = draw(st.sampled_from(clash))
    x[-k] = a[-k] + 1
    return tuple(x)


_BREAKS: dict[str, ShapeRule | None] = {
    "shape": _break_shape, "size": _break_size, "size-at-most": _break_size_at_most, "rank": _break_rank,
    "nonempty": _break_nonempty, "broadcast": _break_broadcast, "unidirectional": _break_unidirectional,
    # the dimension forms: _dim_break
}


def breakers(spec: SpecVersion) -> dict[str, Callable]:
    """Relation id -> breaker(draw, draft): the shape of one of its fixes' targets moved just
    outside what the relation allows (an error relation's must-refuse case). A relation whose
    conjuncts the solver does not read has none here."""
    by_relation: dict[str, list[Fix]] = {}
    for f in compile_plan(spec).fixes:
        if f.breaks is not None:
            by_relation.setdefault(f.relation, []).append(f)
    return {rid: _breaker(fixes) for rid, fixes in by_relation.items()}


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
        try:
            shape = f.breaks(draw, d, env, i, None if f.rhs is None else f.rhs(env))
        except (expr.ExprError, TypeError, ValueError, IndexError):
            return
        if shape is not None and all(s >= 0 for s in shape) and _rank_allowed(d, i, len(shape)):
            _redraw(draw, d, i, tuple(int(s) for s in shape))
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


def _compile(spec: SpecVersion) -> Plan:
    inputs = [p.name for p in spec.inputs if not p.variadic]
    found: list[Fix] = []
    for rid, when, part in conjuncts(spec):
        fix = _fix(rid, part, when, inputs)
        found.extend(fix if isinstance(fix, list) else [] if fix is None else [fix])
    return Plan(_ordered(found))


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
        parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
        out += [(r.id, when, part) for part in parts]
    return out


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
        return copy.deepcopy(self.trees[node.id]) if node.id in self.trees else node


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


def _shape_index(node: ast.AST) -> tuple[str, int] | None:
    """(X, k) for `shape(X)[k]` with a constant k."""
    if isinstance(node, ast.Subscript) and (x := _call(node.value, "shape")):
        k = node.slice
        if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and isinstance(k.operand, ast.Constant):
            return x, -int(k.operand.value)
        if isinstance(k, ast.Constant) and isinstance(k.value, int):
            return x, k.value
    return None


def _compiled(node: ast.AST) -> Callable[[dict], Any]:
    return expr.compiled(ast.unparse(node))


def _input_names(node: ast.AST, inputs: Sequence[str]) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in inputs}


def _fix(rid: str, part: ast.AST, when, inputs: Sequence[str]) -> Fix | list[Fix] | None:
    check = _compiled(part)

    def make(form: str, target: str, rhs: ast.AST | None, rule: ShapeRule, breaks: ShapeRule | None = None) -> Fix | None:
        if target not in inputs:
            return None
        reads = frozenset(_input_names(rhs, inputs) - {target}) if rhs is not None else frozenset()
        own_dim = form == "dim" and _shape_index(rhs) is not None  # Det: shape(X)[-1] == shape(X)[-2]
        if rhs is not None and target in _input_names(rhs, inputs) and not own_dim:
            return None  # X on both sides: not solved for X
        return Fix(rid, form, target, reads, when, check, None if rhs is None else _compiled(rhs), rule,
                   breaks or _BREAKS[form])

    if isinstance(part, ast.Compare) and len(part.ops) == 1:
        left, op, right = part.left, part.ops[0], part.comparators[0]
        if isinstance(op, ast.Eq):
            for lhs, rhs in ((left, right), (right, left)):
                # broadcast_shape(shape(A), shape(Y)) == shape(A): Y unidirectionally broadcastable to A
                if (isinstance(lhs, ast.Call) and getattr(lhs.func, "id", "") == "broadcast_shape" and len(lhs.args) == 2
                        and (a := _call(lhs.args[0], "shape")) and (y := _call(lhs.args[1], "shape")) and _call(rhs, "shape") == a):
                    return make("unidirectional", y, lhs.args[0], _unidirectional_rule)
                if x := _call(lhs, "shape"):
                    return make("shape", x, rhs, _set_shape)
                if xk := _shape_index(lhs):
                    return make("dim", xk[0], rhs, _dim_rule(xk[1], multiple=False), _dim_break(xk[1], "dim"))
                if x := _call(lhs, "size", "len"):
                    return make("size", x, rhs, _size_rule(at_most=False))
                if x := _call(lhs, "rank"):
                    return make("rank", x, rhs, _rank_rule)
                if (isinstance(lhs, ast.BinOp) and isinstance(lhs.op, ast.Mod) and isinstance(rhs, ast.Constant)
                        and rhs.value == 0 and (xk := _shape_index(lhs.left))):
                    return make("multiple", xk[0], lhs.right, _dim_rule(xk[1], multiple=True), _dim_break(xk[1], "multiple"))
        if isinstance(op, ast.LtE) and (x := _call(left, "size", "len")):
            return make("size-at-most", x, right, _size_rule(at_most=True))
        if isinstance(op, (ast.GtE, ast.Gt)) and isinstance(right, ast.Constant) and isinstance(right.value, int):
            floor = right.value if isinstance(op, ast.GtE) else right.value + 1
            if xk := _shape_index(left):
                return make("dim-at-least", xk[0], None, _at_least_rule(xk[1], floor), _dim_break(xk[1], "at-least", floor))
            if floor == 1 and (x := _call(left, "size")):
                return make("nonempty", x, None, _nonempty_rule(None, None))
            if (floor == 1 and isinstance(left, ast.Call) and getattr(left.func, "id", "") == "prod" and len(left.args) == 1
                    and isinstance(left.args[0], ast.Subscript) and (x := _call(left.args[0].value, "shape"))
                    and isinstance(left.args[0].slice, ast.Slice)):
                sl = left.args[0].slice
                try:
                    bounds = [None if b is None else int(ast.literal_eval(b)) for b in (sl.lower, sl.upper)]
                except (ValueError, TypeError):
                    return None  # bounds that are not constants
                return make("nonempty", x, None, _nonempty_rule(*bounds))
    if isinstance(part, ast.Call) and getattr(part.func, "id", "") == "broadcastable" and len(part.args) >= 2:
        # the last shape is fitted to the broadcast of the others (Where: Y to condition and X);
        # a conjunct of three or more gets one fix per later shape, see _broadcast_fixes
        return _broadcast_fixes(part, make)
    return None


def _broadcast_fixes(part: ast.Call, make) -> Fix | list[Fix] | None:
    shapes_of = [_shape_or_prefix(a) for a in part.args]
    if not all(shapes_of):
        return None
    out = []
    for k in range(1, len(part.args)):
        before = part.args[0] if k == 1 else ast.Call(ast.Name("broadcast_shape", ast.Load()), list(part.args[:k]), [])
        x, end = shapes_of[k]
        fix = make("broadcast", x, ast.fix_missing_locations(before), _leading(_broadcast_rule, end),
                   _leading(_break_broadcast, end))
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
    """Fixes setting an input before the fixes reading it; otherwise in spec order (a cycle keeps
    the rest in spec order)."""
    out: list[Fix] = []
    left = list(fixes)
    while left:
        pending = {f.target for f in left}
        ready = next((f for f in left if not (f.reads & pending)), left[0])
        out.append(ready)
        left.remove(ready)
    return tuple(out)
