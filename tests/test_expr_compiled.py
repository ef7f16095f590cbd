"""The compiled relation language (specs/expr.py: closures built once per expression) gives
exactly what the AST walker it replaced gave (kept here as `_walk`): same values (types
included), same errors with the same messages, same short-circuits. Also: `within` equals its element-wise definition, and
the relation checker (compiled plans, early stop in first_broken) gives the statuses the plain
algorithm gives on every stored example of every spec."""
from __future__ import annotations

import ast
from typing import Any, Mapping

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from opconform import specs
from opconform.specs import expr, relations

# overflow in casts, NaN comparisons, division by zero: both evaluators warn alike
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def walk(text: str, env: Mapping[str, Any]) -> Any:
    """The relation language as it was evaluated before compilation: parse, then walk the AST."""
    tree = expr.parse(text)
    try:
        return _walk(tree.body, env)
    except expr.ExprError:
        raise
    except Exception as e:
        raise expr.ExprError(f"{text!r} could not be evaluated: {type(e).__name__}: {e}") from None


def _walk(node: ast.AST, env: Mapping[str, Any]) -> Any:
    """specs/expr.py's AST walker as it was before compilation, kept verbatim as the reference."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        if node.id not in env:
            raise expr.ExprError(f"unknown name {node.id!r}; known: {', '.join(sorted(env))}")
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_walk(e, env) for e in node.elts)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            v = True
            for e in node.values:
                v = _walk(e, env)
                if not expr._truth(v):
                    return v
            return v
        v = False
        for e in node.values:
            v = _walk(e, env)
            if expr._truth(v):
                return v
        return v
    if isinstance(node, ast.UnaryOp):
        v = _walk(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not expr._truth(v)
        return expr._UNARY[type(node.op)](v)
    if isinstance(node, ast.BinOp):
        a, b = _walk(node.left, env), _walk(node.right, env)
        if isinstance(a, tuple) and isinstance(b, tuple) and isinstance(node.op, ast.Add):
            return a + b
        return expr._BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.Compare):
        left = _walk(node.left, env)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = _walk(right_node, env)
            r = expr._CMPOPS[type(op)](left, right)
            if isinstance(r, np.ndarray):
                result = r if result is True else (result & r)
            elif not r:
                return False
            left = right
        return result
    if isinstance(node, ast.IfExp):
        return _walk(node.body, env) if expr._truth(_walk(node.test, env)) else _walk(node.orelse, env)
    if isinstance(node, ast.Subscript):
        return _walk(node.value, env)[_index(node.slice, env)]
    if isinstance(node, ast.Call):
        return expr.FUNCTIONS[node.func.id](*[_walk(a, env) for a in node.args])
    raise expr.ExprError(f"unsupported construct {type(node).__name__}")


def _index(node: ast.AST, env: Mapping[str, Any]) -> Any:
    """What a subscript's brackets hold: a slice, a tuple of them and indices (B[:, 3]), or an index."""
    if isinstance(node, ast.Slice):
        return slice(*(None if part is None else _walk(part, env) for part in (node.lower, node.upper, node.step)))
    if isinstance(node, ast.Tuple):
        return tuple(_index(e, env) for e in node.elts)
    return _walk(node, env)


def outcome(fn, text: str, env: Mapping[str, Any]) -> tuple:
    """('value', type, value) or ('error', type, message), comparable with ==."""
    try:
        v = fn(text, env)
    except Exception as e:  # the error itself is what is compared
        return ("error", type(e).__name__, str(e))
    if isinstance(v, np.ndarray):
        return ("value", "ndarray", v.dtype.str, v.shape, repr(v.tolist()))  # repr: NaN equals NaN
    if isinstance(v, tuple):
        return ("value", "tuple", repr(v))
    return ("value", type(v).__name__, repr(v))


ENV = {
    "x": np.array([[0, 3, 7], [2, -1, 4]], dtype=np.int64),
    "y": np.array([1, 3, 5], dtype=np.int64),
    "f": np.array([0.5, np.nan, -2.0], dtype=np.float32),
    "mask": np.array([True, False, True]),
    "empty": np.zeros((0, 2), dtype=np.int64),
    "S": np.array([3, 8], dtype=np.int64),
    "a": 2,
    "b": 0,
    "n": 5,
    "t": (2, 3, 4),
    "s": "int64",
    "o": None,
    "xs": (np.zeros((2, 1)), np.zeros((3,))),
}

EXPRESSIONS = [
    # literals and names
    "True", "None", "'int32'", "[1, 2]", "(a, n)", "()", "-1", "+2", "-'a'", "~3", "not 0", "a", "s",
    # arithmetic, tuples, element-wise operators
    "a + n * 2", "n // a", "n / a", "n % a", "a ** n", "t + (5,)", "t + t", "(a,) * 3", "x + y", "-x", "~mask",
    "mask & (y > 2)", "mask | (y > 2)", "x * 2 - 1", "1 / b", "t + 1", "-S", "not x", "not mask",
    # comparisons, chained, with arrays and scalars mixed
    "a < n", "a < n < 3", "1 <= a <= n", "0 <= x < 5", "0 <= x < n", "x < 5 < 3", "3 < 2 < unknown_name",
    "x == x", "y != y", "x < y", "f < 1", "f == f", "a < x < 100 < n", "y < n <= a", "t == (2, 3, 4)",
    "t[:2] == (2, 3)", "a in (1, 2)", "a not in (1, 2)", "s in ('int64', 'int32')", "3 in t", "a in x",
    "(x >= -S[0]) & (x < S[1])", "0 <= y <= S", "1 < 2 < 3 < 4", "1 < 2 < 3 > 4",
    # boolean operators: short-circuits, values returned, arrays
    "False and unknown_name", "True or unknown_name", "a and n", "b and n", "b or n", "o or a", "x and y",
    "mask and a", "mask or a", "empty and a", "present(o) and rank(o) == 2", "not present(o) or rank(o) == 2",
    "a > 0 and n > a and t[0] == a", "b > 0 or n < 0 or a",
    # conditional
    "1 if a > 0 else unknown_name", "unknown_name if b else 2", "x if mask else y", "y if f < 10 else 0",
    # subscripts and slices
    "t[0]", "t[-1]", "t[1:]", "t[:a]", "t[::-1]", "t[a - 1:a + 1]", "t[::a]", "t[::b]", "x[0]", "x[0, 1]",
    "t[5]", "shape(x)[a:]", "shape(x)[-1]", "s[0]", "x[-1][-1]", "t[o:o]",
    # calls
    "min(a, n)", "max(t)", "min(t[:0])", "rank(x)", "shape(empty)", "size(x)", "dtype(f)", "dtype(s)",
    "len(t)", "abs(-a)", "all(x >= -1)", "any(mask)", "all(empty > 0)", "all(t)", "sum(t)", "prod(t)",
    "prod(())", "int(f[0])", "sorted((3, 1, 2))", "range(a)", "range(1, n, a)", "asarray(t)", "values(x)",
    "isnan(f)", "broadcastable(shape(x), shape(y))", "broadcast_shape(shape(x), (1, 3))", "shapes(xs)",
    "broadcastable_all(shapes(xs))", "ranks(xs)", "distinct_count((1, 1, 2))", "normalize_axis(-1, a)",
    "floor(n / a)", "ceil(n / a)", "within(x, -1, 8)", "within(x, 0, 8)", "within(y, 0, S[1])",
    "within(empty, 0, S)", "rank(unknown_name)", "shape(x)[rank(x)]", "min()", "len(a)",
]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_compiled_equals_walker(text):
    assert outcome(expr.evaluate, text, ENV) == outcome(walk, text, ENV)


def test_errors_name_the_expression_or_the_unknown_name():
    with pytest.raises(expr.ExprError, match=r"'t\[5\]' could not be evaluated: IndexError"):
        expr.evaluate("t[5]", ENV)
    with pytest.raises(expr.ExprError, match=r"unknown name 'nope'; known: S, a, b"):
        expr.evaluate("a + nope", ENV)
    with pytest.raises(expr.ExprError, match=r"could not be evaluated: IndexError"):
        expr.evaluate("x[0, 0:1, 2]", ENV)  # more indices than x has axes


def test_slices_among_the_indices_index_per_axis():
    # added after the walker (which refused them): RoiAlign's rois[:, 2], a column
    x = ENV["x"]
    assert np.array_equal(expr.evaluate("x[1:2, 0]", ENV), x[1:2, 0])
    assert np.array_equal(expr.evaluate("x[:, a - 1:]", ENV), x[:, ENV["a"] - 1:])
    assert np.array_equal(expr.evaluate("x[::-1, 0]", ENV), x[::-1, 0])


@pytest.mark.parametrize("text", ["x.shape", "open(x)", "lambda: 1", "min(x, key=1)", "x @ y", "[v for v in t]", "a +"])
def test_malformed_expressions_refused_the_same_way(text):
    with pytest.raises(expr.ExprError) as compiled:
        expr.evaluate(text, ENV)
    with pytest.raises(expr.ExprError) as walked:
        walk(text, ENV)
    assert str(compiled.value) == str(walked.value) and repr(text) in str(compiled.value)


def test_compiled_once_per_text_and_functions_looked_up_per_call(monkeypatch):
    assert expr.compiled("a + n * 3") is expr.compiled("a + n * 3")
    monkeypatch.setitem(expr.FUNCTIONS, "twice_for_test", lambda v: 2 * v)
    assert expr.evaluate("twice_for_test(a)", ENV) == 4
    monkeypatch.setitem(expr.FUNCTIONS, "twice_for_test", lambda v: 3 * v)
    assert expr.evaluate("twice_for_test(a)", ENV) == 6  # a function replaced later is the one called


# Random expressions over the same environment: a small grammar of the language's constructs.
_ATOMS = st.sampled_from(["a", "b", "n", "x", "y", "f", "mask", "t", "S", "o", "0", "1", "-2", "2.5", "unknown_name"])


def _compound(inner):
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%", "&", "|"]), inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
    chain = st.lists(inner, min_size=2, max_size=4).flatmap(
        lambda parts: st.lists(st.sampled_from(["<", "<=", "==", "!=", ">", ">=", "in"]), min_size=len(parts) - 1,
                               max_size=len(parts) - 1).map(lambda ops: "(" + " ".join(
                                   p + (f" {o}" if o else "") for p, o in zip(parts, ops + [""])) + ")"))
    boolean = st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
    unary = st.tuples(st.sampled_from(["not ", "-", "~"]), inner).map(lambda p: f"({p[0]}{p[1]})")
    ifexp = st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})")
    call = st.tuples(st.sampled_from(["all", "any", "rank", "shape", "len", "abs", "present", "size"]), inner).map(
        lambda p: f"{p[0]}({p[1]})")
    sub = st.tuples(inner, st.sampled_from(["[0]", "[-1]", "[1:]", "[:a]", "[::-1]", "[b:n]"])).map(lambda p: p[0] + p[1])
    return st.one_of(binary, chain, boolean, unary, ifexp, call, sub)


@given(st.recursive(_ATOMS, _compound, max_leaves=8))
def test_random_expressions_compiled_equals_walker(text):
    assert outcome(expr.evaluate, text, ENV) == outcome(walk, text, ENV)


@st.composite
def bounded(draw):
    """(x, lo, hi) with x big enough, sometimes, to take within's min/max paths."""
    dtype = draw(st.sampled_from([np.int64, np.int32, np.uint8, np.int8, np.float32, np.float64, np.uint64]))
    k = draw(st.integers(1, 4))
    rows = draw(st.sampled_from([0, 1, 3, 5000]))
    lo_scalar = draw(st.booleans())
    lo = draw(st.integers(-3, 1)) if lo_scalar else draw(hnp.arrays(np.int64, draw(st.sampled_from([(k,), (1, k), (1,)])),
                                                                     elements=st.integers(-3, 1)))
    hi = draw(hnp.arrays(np.int64, draw(st.sampled_from([(k,), (1,), (), (2, k)])), elements=st.integers(0, 6)))
    base = draw(hnp.arrays(dtype, (min(rows, 4), k), elements=st.integers(0 if np.dtype(dtype).kind == "u" else -4, 7)))
    x = np.resize(base, (rows, k)) if rows else base[:0]
    if rows and draw(st.booleans()):  # one planted value anywhere in a large x
        x = x.copy()
        x[draw(st.integers(0, rows - 1)), draw(st.integers(0, k - 1))] = draw(st.integers(0, 9))
    return x, lo, hi


@given(bounded())
def test_within_equals_elementwise_definition(case):
    x, lo, hi = case
    try:
        want: Any = bool(np.all((x >= lo) & (x < hi)))
    except ValueError as e:
        want = str(e)
    try:
        got: Any = expr.FUNCTIONS["within"](x, lo, hi)
    except ValueError as e:
        got = str(e)
    assert got == want


def test_within_on_large_index_tensors_both_ways():
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 10, size=(20_000, 3))
    bounds = np.array([10, 10, 10])
    assert expr.evaluate("within(i, 0, S)", {"i": idx, "S": bounds}) is True
    assert expr.evaluate("within(i, 0, S)", {"i": idx, "S": np.array([10, 9, 10])}) is False  # per-column path
    idx[12_345, 1] = -11
    assert expr.evaluate("within(i, -S, S)", {"i": idx, "S": bounds}) is False


def plain_check_all(spec, inputs, attributes) -> list[relations.RelationStatus]:
    """check_all as written before plans: environment by hand, every relation walked."""
    env: dict[str, Any] = {}
    for port, v in zip(spec.inputs, list(inputs) + [None] * (len(spec.inputs) - len(inputs))):
        env[port.name] = v
    if spec.inputs and spec.inputs[-1].variadic:
        env[spec.inputs[-1].name] = tuple(inputs[len(spec.inputs) - 1:])
    for a in spec.attributes:
        env[a.name] = None
    env.update(spec.resolved_attributes(attributes))
    for name, text in spec.symbols.items():
        try:
            env[name] = walk(text, env)
        except expr.ExprError:
            env[name] = relations._Unevaluable(name)
    out = []
    for r in spec.relations:
        try:
            if r.when is not None and not relations._truth(walk(r.when, env)):
                out.append(relations.RelationStatus(r.id, r.on_violation, "not-applicable"))
                continue
            ok = relations._truth(walk(r.check, env))
            out.append(relations.RelationStatus(r.id, r.on_violation, "holds" if ok else "broken", "" if ok else r.check))
        except (expr.ExprError, TypeError) as e:
            out.append(relations.RelationStatus(r.id, r.on_violation, "unevaluable", str(e)))
    return out


def test_relation_statuses_unchanged_on_every_stored_example():
    checked = 0
    for spec in specs.all_versions():
        for ex in spec.examples:
            inputs, attributes = list(ex.inputs), dict(ex.attributes)
            want = plain_check_all(spec, inputs, attributes)
            assert specs.check_all(spec, inputs, attributes) == want, (spec.id, ex.name)
            first = next((s for s in want if s.state in ("broken", "unevaluable")), None)
            assert specs.first_broken(spec, inputs, attributes) == first, (spec.id, ex.name)
            checked += 1
    assert checked > 100


def test_plan_follows_the_spec_object():
    spec = specs.load("onnx::GatherND-13")
    data, idx = np.arange(6).reshape(2, 3), np.array([[1, 2]])
    assert specs.first_broken(spec, [data, idx], {}) is None
    import dataclasses

    stricter = dataclasses.replace(spec, relations=spec.relations + (
        type(spec.relations[0])("tiny_only", "size(data) < 4", "error"),))
    assert specs.first_broken(stricter, [data, idx], {}).id == "tiny_only"
    assert specs.first_broken(spec, [data, idx], {}) is None


def test_all_and_any_of_a_scalar_comparison():
    """A comparison of a 0-d input gives a NumPy scalar, not an array: all/any still hold it (it
    was 'unevaluable', so a relation such as OneHot's indices_castable failed every scalar)."""
    x = np.array(3, np.int16)
    assert expr.evaluate("all(abs(float64(indices)) <= 1e18)", {"indices": x}) is True
    assert expr.evaluate("any(indices > 5)", {"indices": x}) is False
