"""The relation language: small, declarative, evaluated by opconform itself.

Relations in spec files are Python-like expressions:

    b < min(q, r)
    1 <= shape(indices)[-1] <= r - b
    shape(data)[:b] == shape(indices)[:b]
    all((indices >= -S) & (indices < S))

They are parsed with `ast` in "eval" mode and walked by a whitelisting interpreter: no
attribute access, no calls except the functions below, no comprehensions, no lambdas,
no names but the bound variables. A spec file never runs as Python.

Values are ints, floats, bools, strings, tuples (shapes), None (an absent optional input)
and NumPy arrays (input values; arithmetic and comparisons on them are element-wise).
"""
from __future__ import annotations

import ast
import functools
import operator
from typing import Any, Callable, Mapping

import numpy as np

from opconform.specs import einsum_equation


class ExprError(ValueError):
    """An expression is malformed, or failed to evaluate."""


def _shape(x):
    return tuple(int(d) for d in np.shape(x))


def _rank(x):
    return len(np.shape(x))


def _size(x):
    return int(np.size(x))


def _dtype(x):
    from opconform import dtypes

    return dtypes.name_of(np.asarray(x).dtype)


def _broadcastable(*shapes):
    try:
        np.broadcast_shapes(*[tuple(s) for s in shapes])
        return True
    except ValueError:
        return False


def _broadcast_shape(*shapes):
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def _prod(xs):
    return int(np.prod(np.asarray(xs, dtype=np.int64))) if len(xs) else 1


def _all(x):
    if isinstance(x, np.ndarray):
        return bool(np.all(x))
    return all(x)


def _any(x):
    if isinstance(x, np.ndarray):
        return bool(np.any(x))
    return any(x)


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


def _normalize_axis(axis, rank):
    return axis + rank if axis < 0 else axis


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "rank": _rank,
    "shape": _shape,
    "size": _size,
    "dtype": _dtype,
    "present": lambda x: x is not None,
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "all": _all,
    "any": _any,
    "sum": lambda xs: sum(xs),
    "prod": _prod,
    "int": int,
    "tuple": tuple,
    "sorted": lambda xs: tuple(sorted(xs)),
    "range": lambda *a: tuple(range(*a)),
    "asarray": lambda x: np.asarray(x, dtype=np.int64) if isinstance(x, (tuple, list)) else np.asarray(x),
    "values": lambda x: np.asarray(x).reshape(-1),
    "isnan": lambda x: np.isnan(x),
    "broadcastable": _broadcastable,
    "broadcast_shape": _broadcast_shape,
    # variadic inputs are tuples of arrays: per-entry shapes and element types, and broadcasting over them all
    "shapes": lambda xs: tuple(_shape(x) for x in xs),
    "dtypes": lambda xs: tuple(_dtype(x) for x in xs),
    "broadcastable_all": lambda shapes: _broadcastable(*shapes),
    "ranks": lambda xs: tuple(_rank(x) for x in xs),
    # how many different values a tuple holds (element types, ranks: "all inputs agree" is == 1)
    "distinct_count": lambda xs: len(set(xs)),
    "float64": lambda x: np.asarray(x).astype(np.float64),  # compare narrow floats (float8...) with big bounds
    # product in float64: element counts of requested shapes without int64 wrap-around
    "fprod": lambda xs: float(np.prod(np.asarray(xs, dtype=np.float64))),
    # string tensors: which elements are numeric literals ("3.14", "1e-5", "INF", "NaN"), or integer ones
    "numeric_text": lambda x: _text_test(x, float),
    "integer_text": lambda x: _text_test(x, int),
    "unique_count": _unique_count,
    "normalize_axis": _normalize_axis,
    "distinct_rows": _distinct_rows,
    "distinct_along": _distinct_along,
    "einsum_terms": lambda equation: tuple(einsum_equation.parse(equation)[0]),
    "einsum_problem": lambda equation, xs: einsum_equation.problem(equation, [_shape(x) for x in xs]),
    "floor": lambda x: int(np.floor(x)),
    "ceil": lambda x: int(np.ceil(x)),
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
    tree = parse(text)
    try:
        return _eval(tree.body, env)
    except ExprError:
        raise
    except Exception as e:  # the expression itself failed on these values (index out of range...)
        raise ExprError(f"{text!r} could not be evaluated: {type(e).__name__}: {e}") from None


def _eval(node: ast.AST, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        if node.id not in env:
            raise ExprError(f"unknown name {node.id!r}; known: {', '.join(sorted(env))}")
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            v = True
            for e in node.values:
                v = _eval(e, env)
                if not _truth(v):
                    return v
            return v
        v = False
        for e in node.values:
            v = _eval(e, env)
            if _truth(v):
                return v
        return v
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not _truth(v)
        return _UNARY[type(node.op)](v)
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, env), _eval(node.right, env)
        if isinstance(a, tuple) and isinstance(b, tuple) and isinstance(node.op, ast.Add):
            return a + b
        return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, env)
            r = _CMPOPS[type(op)](left, right)
            if isinstance(r, np.ndarray):
                result = r if result is True else (result & r)
            elif not r:
                return False
            left = right
        return result
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _truth(_eval(node.test, env)) else _eval(node.orelse, env)
    if isinstance(node, ast.Subscript):
        v = _eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            s = node.slice
            return v[
                slice(
                    None if s.lower is None else _eval(s.lower, env),
                    None if s.upper is None else _eval(s.upper, env),
                    None if s.step is None else _eval(s.step, env),
                )
            ]
        return v[_eval(node.slice, env)]
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](*[_eval(a, env) for a in node.args])
    raise ExprError(f"unsupported construct {type(node).__name__}")


def _truth(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return bool(np.all(v))
    return bool(v)
