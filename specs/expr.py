"""The relation language: small, declarative, evaluated by opconform itself.

Relations in spec files are Python-like expressions:

    b < min(q, r)
    1 <= shape(indices)[-1] <= r - b
    shape(data)[:b] == shape(indices)[:b]
    all((indices >= -S) & (indices < S))

They are parsed with `ast` in "eval" mode and checked against a whitelist: no attribute
access, no calls except the functions below, no comprehensions, no lambdas, no names but the
bound variables. Each checked tree is then compiled once into nested Python closures (one per
node; see `compiled`), which evaluations reuse. A spec file never runs as Python.

Values are ints, floats, bools, strings, tuples (shapes), None (an absent optional input)
and NumPy arrays (input values; arithmetic and comparisons on them are element-wise).
"""
from __future__ import annotations

import ast
import functools
import operator
from typing import Any, Callable, Mapping

import numpy as np

from opconform import containers
from opconform.specs import einsum_equation


class ExprError(ValueError):
    """An expression is malformed, or failed to evaluate."""


def _shape(x):
    if type(x) is np.ndarray:  # the common case, without a generator per call (relations run per oracle call)
        return x.shape
    return tuple(int(d) for d in np.shape(x))


def _rank(x):
    if type(x) is np.ndarray:
        return x.ndim
    return len(np.shape(x))


def _size(x):
    return int(np.size(x))


_DTYPE_NAMES: dict[np.dtype, str] = {}  # dtypes.name_of scans every element type; relations ask per call


def _dtype(x):
    if type(x) is not np.ndarray and containers.is_container(x):
        return x.type  # a sequence's, optional's or map's type string (opconform.containers)
    dt = x.dtype if type(x) is np.ndarray else np.asarray(x).dtype
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        from opconform import dtypes

        name = dtypes.name_of(dt)
        if dt.kind not in "OUS":  # one entry per string length would grow without bound
            _DTYPE_NAMES[dt] = name
    return name


# Relations are checked on every drawn input, NaN, inf and the extremes of each element type
# included, and their arithmetic and comparisons on such values answer as the relation means
# (a NaN compares False, an overflow becomes inf and fails a bound): NumPy's floating-point
# warnings there report the expected case, not a fault. They are turned off only around
# operations on NumPy values, so plain-Python shape arithmetic pays nothing.
_NUMPY_VALUES = (np.ndarray, np.generic)


def _quiet(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A binary operation that, on NumPy operands, runs with NumPy's floating-point warnings off."""

    def call(a: Any, b: Any) -> Any:
        if isinstance(a, _NUMPY_VALUES) or isinstance(b, _NUMPY_VALUES):
            with np.errstate(all="ignore"):
                return fn(a, b)
        return fn(a, b)

    return call


def _float64(x: Any) -> np.ndarray:
    """x as float64, to compare narrow floats (float8...) with bounds wider than their type; a
    complex value compares by its real part, as NumPy's cast would take it (without the warning)."""
    a = np.asarray(x)
    if a.dtype.kind == "c":
        a = a.real
    with np.errstate(all="ignore"):  # NaN and inf of narrow floats widen as themselves
        return a.astype(np.float64)


def _isnan(x: Any) -> Any:
    with np.errstate(all="ignore"):  # some narrow float types (ml_dtypes) flag NaN as invalid
        return np.isnan(x)


def _sum(xs: Any) -> Any:
    with np.errstate(all="ignore"):  # NumPy integer elements wrap as the backend's arithmetic does
        return sum(xs)


def _broadcastable(*shapes):
    try:
        np.broadcast_shapes(*[tuple(s) for s in shapes])
        return True
    except ValueError:
        return False


def _broadcast_shape(*shapes):
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def _prod(xs):
    if not len(xs):
        return 1
    a = np.asarray(xs)
    if np.iscomplexobj(a):  # a must-refuse case's shape tensor of the wrong type: its real part, without a ComplexWarning
        a = a.real
    with np.errstate(all="ignore"):  # a NaN or huge float entry casts to some int64: the shape is invalid anyway
        return int(np.prod(a.astype(np.int64)))


def _fprod(xs) -> float:
    a = np.asarray(xs)
    if np.iscomplexobj(a):  # a must-refuse case's sizes of the wrong type: their real part, without a ComplexWarning
        a = a.real
    # a product past float64's range is inf: bigger than any bound, as meant; inf times 0 is NaN, which
    # compares False with any bound (PriorBox-8's drawn sizes hold both)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.prod(a.astype(np.float64)))


def _all(x):
    if isinstance(x, (np.ndarray, np.generic, bool)):  # a comparison of a 0-d input gives a scalar
        return bool(np.all(x))
    return all(x)


def _any(x):
    if isinstance(x, (np.ndarray, np.generic, bool)):
        return bool(np.any(x))
    return any(x)


# below this many elements the element-wise form is cheaper: one reduction where min and max make two
_WITHIN_ELEMENTWISE_BELOW = 4096


def _within(x, lo, hi) -> bool:
    """np.all((x >= lo) & (x < hi)): every element of x in [lo, hi), the bounds broadcast against x.

    Index checks compare a whole index tensor with per-component bounds (shape (m,) against
    (..., m)); NumPy's broadcast comparison over such short rows is slow and makes three
    temporaries. Bounds that vary along the last axis only are settled exactly by min and max
    (of all of x when every column has the same bounds, else per column); anything else, or
    other element kinds, takes the element-wise form, errors included."""
    x, lo, hi = np.asarray(x), np.asarray(lo), np.asarray(hi)
    with np.errstate(all="ignore"):  # NaN (and narrow floats) compare False: outside, as meant
        return _within_checked(x, lo, hi)


def _within_checked(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    columns = x.shape[-1] if x.ndim else 1
    if x.size < _WITHIN_ELEMENTWISE_BELOW or columns > 16 or not (
        all(a.dtype.kind in "iuf" and a.size for a in (x, lo, hi)) and _per_column(x.shape, lo.shape, hi.shape)
    ):
        return bool(np.all((x >= lo) & (x < hi)))
    # compared as NumPy scalars, not Python numbers, so they promote as the element-wise form does
    los, his = lo.reshape(-1), hi.reshape(-1)
    if len(set(los.tolist())) == 1 and len(set(his.tolist())) == 1:  # one bound pair for every column
        return bool(x.min() >= los[0] and x.max() < his[0])
    los, his = (np.repeat(b, columns) if b.size == 1 else b for b in (los, his))
    rows = x.reshape(-1, columns)
    # a loop over the index tuple's components (axes), each a strided min/max over every row
    return all(bool(rows[:, j].min() >= los[j] and rows[:, j].max() < his[j]) for j in range(columns))


def _per_column(shape: tuple, *bounds: tuple) -> bool:
    """Every bound broadcasts against `shape` without enlarging it and varies along the last axis only."""
    return all(
        len(b) <= len(shape) and all(d == 1 for d in b[:-1]) and (not b or b[-1] in (1, shape[-1])) for b in bounds
    )


def _unique_count(xs):
    return len(set(int(v) for v in np.asarray(xs).reshape(-1)))


def _distinct_rows(x):
    """True when the rows along the last axis (index tuples, say) are pairwise distinct."""
    a = np.asarray(x)
    rows = a.reshape(-1, a.shape[-1]) if a.ndim else a.reshape(1, 1)
    return len(np.unique(rows, axis=0)) == len(rows)


def _distinct_along(x, axis):
    """True when, at every position of the other axes, the values along `axis` are distinct."""
    s = np.sort(np.asarray(x), axis=axis)
    return bool(np.all(np.diff(s, axis=axis) != 0))


def _text_test(x, parse) -> np.ndarray:
    def ok(s) -> bool:
        try:
            parse(s.decode() if isinstance(s, bytes) else str(s))
            return True
        except ValueError:
            return False

    flat = np.asarray(x, dtype=object).reshape(-1)
    return np.fromiter((ok(s) for s in flat), dtype=bool, count=flat.size).reshape(np.shape(x))


def normalize_axis(axis, rank) -> int:
    """A possibly negative axis as a non-negative one: the one implementation every stage uses
    (relations, the generator's hooks, the oracles)."""
    a = int(axis)
    return a + int(rank) if a < 0 else a


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "rank": _rank,
    "shape": _shape,
    "size": _size,
    "dtype": _dtype,
    "present": lambda x: x is not None,
    # sequences, optionals and maps (opconform.containers): item or entry count (an optional: 0 or
    # 1), and a sequence's items as a tuple (for shapes(), dtypes(), ranks())
    "length": containers.length,
    "items": lambda x: tuple(x.items),
    # an optional holding a value, or any value that is not an optional (OptionalGetElement-18)
    "has_element": lambda x: x is not None and (not isinstance(x, containers.OptionalValue) or x.has_element),
    # a map's keys and values as 1-D arrays (DictVectorizer, CastMap), and which elements of x a
    # tuple holds (keys in a vocabulary)
    "map_keys": lambda m: m.keys,
    "map_values": lambda m: m.values,
    "isin": lambda x, values: np.isin(np.asarray(x, dtype=object), np.asarray(values, dtype=object)),
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "all": _all,
    "any": _any,
    "sum": _sum,
    "prod": _prod,
    "int": int,
    "tuple": tuple,
    "sorted": lambda xs: tuple(sorted(xs)),
    "range": lambda *a: tuple(range(*a)),
    "asarray": lambda x: np.asarray(x, dtype=np.int64) if isinstance(x, (tuple, list)) else np.asarray(x),
    "values": lambda x: np.asarray(x).reshape(-1),
    # a tensor in another shape of as many elements (an OpenVINO grouped kernel [G, M, C, k..] as ONNX's [G*M, C, k..])
    "reshape": lambda x, shape: np.asarray(x).reshape(tuple(int(d) for d in shape)),
    "isnan": _isnan,
    "broadcastable": _broadcastable,
    "broadcast_shape": _broadcast_shape,
    # variadic inputs are tuples of arrays: per-entry shapes and element types, and broadcasting over them all
    "shapes": lambda xs: tuple(_shape(x) for x in xs),
    "dtypes": lambda xs: tuple(_dtype(x) for x in xs),
    "broadcastable_all": lambda shapes: _broadcastable(*shapes),
    "ranks": lambda xs: tuple(_rank(x) for x in xs),
    # how many different values a tuple holds (element types, ranks: "all inputs agree" is == 1)
    "distinct_count": lambda xs: len(set(xs)),
    "float64": _float64,  # compare narrow floats (float8...) with big bounds
    # product in float64: element counts of requested shapes without int64 wrap-around
    "fprod": _fprod,
    # string tensors: which elements are numeric literals ("3.14", "1e-5", "INF", "NaN"), or integer ones
    "numeric_text": lambda x: _text_test(x, float),
    "integer_text": lambda x: _text_test(x, int),
    "unique_count": _unique_count,
    "normalize_axis": normalize_axis,
    "distinct_rows": _distinct_rows,
    "distinct_along": _distinct_along,
    "einsum_terms": lambda equation: tuple(einsum_equation.parse(equation)[0]),
    "einsum_problem": lambda equation, xs: einsum_equation.problem(equation, [_shape(x) for x in xs]),
    "floor": lambda x: int(np.floor(x)),
    "ceil": lambda x: int(np.ceil(x)),
    # every element of x in [lo, hi) (bounds broadcast): all((x >= lo) & (x < hi)) without its temporaries
    "within": _within,
    # graph attributes (opconform/graphs.py): how many inputs and outputs a body has, and the element
    # types of its outputs (If's branches agree on them)
    "graph_inputs": lambda g: len(g.inputs),
    "graph_outputs": lambda g: len(g.outputs),
    "graph_output_types": lambda g: tuple(v.type for v in g.outputs),
    # Gradient: the tensors a body defines (its inputs and node outputs), their element types by name
    "graph_tensors": lambda g: tuple(v.name for v in g.inputs) + tuple(o for n in g.nodes for o in n.outputs if o),
    "graph_input_types": lambda g: tuple(v.type for v in g.inputs),
    "all_in": lambda names, pool: all(n in pool for n in names),
    "disjoint": lambda a, b: not set(a) & set(b),
}

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
}
_CMPOPS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert}


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> ast.Expression:
    """Parse and whitelist an expression; raises ExprError naming the offending construct."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ExprError(f"cannot parse expression {text!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                name = getattr(node.func, "id", ast.unparse(node.func))
                raise ExprError(f"expression {text!r} calls {name!r}; allowed functions: {', '.join(sorted(FUNCTIONS))}")
            if node.keywords:
                raise ExprError(f"expression {text!r}: keyword arguments are not part of the relation language")
        elif not isinstance(
            node,
            (
                ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Name,
                ast.Constant, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Load, ast.And, ast.Or,
                ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
            ),
        ):
            raise ExprError(f"expression {text!r} uses {type(node).__name__}, which the relation language does not have")
        if isinstance(node, ast.BinOp) and type(node.op) not in _BINOPS:
            raise ExprError(f"expression {text!r} uses operator {type(node.op).__name__}, which is not allowed")
    return tree


def names(text: str) -> set[str]:
    """Variable names an expression reads (function names excluded)."""
    tree = parse(text)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called


def evaluate(text: str, env: Mapping[str, Any]) -> Any:
    """Evaluate `text` with variables from `env`. Errors raise ExprError with the expression."""
    return compiled(text)(env)


@functools.lru_cache(maxsize=4096)
def compiled(text: str) -> Callable[[Mapping[str, Any]], Any]:
    """`evaluate(text, .)` as a function of the environment, parsed and compiled once.

    Relations run on every oracle call; walking the AST each time cost more than small
    operators themselves, so the tree is turned into nested closures once per text.
    A malformed expression raises ExprError here (and is not cached, as `parse` caches none)."""
    body = _compile(parse(text).body)

    def run(env: Mapping[str, Any]) -> Any:
        try:
            return body(env)
        except ExprError:
            raise
        except Exception as e:  # the expression itself failed on these values (index out of range...)
            raise ExprError(f"{text!r} could not be evaluated: {type(e).__name__}: {e}") from None

    return run


_Compiled = Callable[[Mapping[str, Any]], Any]


def _compile(node: ast.AST) -> _Compiled:
    """Closures with exactly the semantics the AST walker had before compilation (evaluation
    order, short-circuits, chained comparisons over arrays, errors); tests/test_expr_compiled.py
    keeps that walker and checks the two agree."""
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.Name):
        return _compile_name(node.id)
    if isinstance(node, (ast.Tuple, ast.List)):
        if all(isinstance(e, ast.Constant) for e in node.elts):  # `dtype(x) in ('int32', ...)`: built once
            return _constant(tuple(e.value for e in node.elts))
        parts = tuple(_compile(e) for e in node.elts)
        return lambda env: tuple(p(env) for p in parts)
    if isinstance(node, ast.BoolOp):
        return _compile_boolop(isinstance(node.op, ast.And), tuple(_compile(e) for e in node.values))
    if isinstance(node, ast.UnaryOp):
        return _compile_unary(node)
    if isinstance(node, ast.BinOp):
        left, right, binop = _compile(node.left), _compile(node.right), _quiet(_BINOPS[type(node.op)])
        return lambda env: binop(left(env), right(env))  # tuple + tuple concatenates (operator.add)
    if isinstance(node, ast.Compare):
        return _compile_compare(node)
    if isinstance(node, ast.IfExp):
        test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
        return lambda env: body(env) if _truth(test(env)) else orelse(env)
    if isinstance(node, ast.Subscript):
        return _compile_subscript(node)
    if isinstance(node, ast.Call):
        return _compile_call(node.func.id, tuple(_compile(a) for a in node.args))
    return _unsupported(type(node).__name__)


def _constant(value: Any) -> _Compiled:
    return lambda env: value


def _unsupported(construct: str) -> _Compiled:
    def fail(env: Mapping[str, Any]) -> Any:
        raise ExprError(f"unsupported construct {construct}")

    return fail


def _compile_name(name: str) -> _Compiled:
    if name in ("True", "False", "None"):
        return _constant({"True": True, "False": False, "None": None}[name])

    def lookup(env: Mapping[str, Any]) -> Any:
        if name not in env:
            raise ExprError(f"unknown name {name!r}; known: {', '.join(sorted(env))}")
        return env[name]

    return lookup


def _compile_boolop(is_and: bool, parts: tuple[_Compiled, ...]) -> _Compiled:
    def conjunction(env: Mapping[str, Any]) -> Any:
        v: Any = True
        for p in parts:
            v = p(env)
            if not _truth(v):
                return v
        return v

    def disjunction(env: Mapping[str, Any]) -> Any:
        v: Any = False
        for p in parts:
            v = p(env)
            if _truth(v):
                return v
        return v

    return conjunction if is_and else disjunction


def _compile_unary(node: ast.UnaryOp) -> _Compiled:
    operand = _compile(node.operand)
    if isinstance(node.op, ast.Not):
        return lambda env: not _truth(operand(env))
    unop = _UNARY[type(node.op)]
    if isinstance(node.operand, ast.Constant):  # `-1`: folded, unless it fails (then it fails when evaluated)
        try:
            return _constant(unop(node.operand.value))
        except Exception:
            pass
    return lambda env: unop(operand(env))


def _compile_compare(node: ast.Compare) -> _Compiled:
    first = _compile(node.left)
    links = tuple((_quiet(_CMPOPS[type(op)]), _compile(c)) for op, c in zip(node.ops, node.comparators))
    if len(links) == 1:
        ((cmp, right),) = links

        def compare(env: Mapping[str, Any]) -> Any:
            r = cmp(first(env), right(env))
            if isinstance(r, np.ndarray):
                return r
            return True if r else False

        return compare

    def chain(env: Mapping[str, Any]) -> Any:
        left = first(env)
        result: Any = True
        for cmp, right_of in links:
            right = right_of(env)
            r = cmp(left, right)
            if isinstance(r, np.ndarray):
                result = r if result is True else (result & r)
            elif not r:
                return False
            left = right
        return result

    return chain


def _compile_subscript(node: ast.Subscript) -> _Compiled:
    value = _compile(node.value)
    s = node.slice
    if isinstance(s, ast.Tuple) and any(isinstance(e, ast.Slice) for e in s.elts):
        # an array indexed per axis, slices among the indices (rois[:, 2]: a column)
        parts = tuple(_slice_part(e) for e in s.elts)
        return lambda env: value(env)[tuple(p(env) for p in parts)]
    if not isinstance(s, ast.Slice):
        index = _compile(s)
        return lambda env: value(env)[index(env)]
    none = _constant(None)
    lower, upper, step = (none if e is None else _compile(e) for e in (s.lower, s.upper, s.step))
    return lambda env: _sliced(value(env), env, lower, upper, step)


def _slice_part(e: ast.AST) -> _Compiled:
    if not isinstance(e, ast.Slice):
        return _compile(e)
    none = _constant(None)
    lower, upper, step = (none if x is None else _compile(x) for x in (e.lower, e.upper, e.step))
    return lambda env: slice(lower(env), upper(env), step(env))


def _sliced(v: Any, env: Mapping[str, Any], lower: _Compiled, upper: _Compiled, step: _Compiled) -> Any:
    return v[slice(lower(env), upper(env), step(env))]


def _compile_call(name: str, args: tuple[_Compiled, ...]) -> _Compiled:
    # FUNCTIONS is looked up per call, as the walker did, so a function registered later is the one used
    if len(args) == 1:
        (arg,) = args
        return lambda env: FUNCTIONS[name](arg(env))
    return lambda env: FUNCTIONS[name](*[a(env) for a in args])


def _truth(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return bool(np.all(v))
    return bool(v)
