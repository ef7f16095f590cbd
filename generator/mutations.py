"""Generic ways to break a relation, by the kind of implicit relation (see specs/loader.py).

A breaker is `fn(draw, d: Draft) -> None`: it changes a valid draft so that the relation no
longer holds. Whether it broke exactly that relation is checked afterwards (strategies.py);
operator hooks supply breakers for the operator's own relations (`BREAK` in the hook).
"""
from __future__ import annotations

import ast

from typing import Callable

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.specs import expr
from opconform.generator import shapes, values
from opconform.generator.draft import Draft
from opconform.generator.factors import UNDRAWN
from opconform.generator.families.default import attribute_bounds, attribute_value, generatable, input_array
from opconform.model import SpecVersion

Breaker = Callable[[object, Draft], None]


def _redraw_input(draw, d: Draft, name: str, *, dtype: str | None = None, rank: int | None = None) -> None:
    """Replace one input: same shape unless a rank is given; new element type if given."""
    i = d.port_index(name)
    old = d.inputs[i]
    if dtype is not None:
        d.dtypes[i] = dtype
    shape = None if rank is not None or not isinstance(old, np.ndarray) else old.shape  # a container has none
    d.inputs[i] = input_array(draw, d, i, rank=rank, shape=shape)


def _convert(x: np.ndarray, name: str) -> np.ndarray | None:
    """The same values in another element type, or None when they do not survive the trip
    (keeping values keeps value relations, e.g. index bounds, intact)."""
    if not isinstance(x, np.ndarray) or x.dtype == object or name == "string" or dtypes.get(name).kind == "complex":
        return None
    with np.errstate(all="ignore"):
        try:
            y = x.astype(dtypes.numpy_dtype(name))
            back = y.astype(x.dtype)
        except (TypeError, ValueError, OverflowError):
            return None
    same = np.array_equal(back, x, equal_nan=x.dtype.kind == "f") if x.dtype.kind in "biuf" else False
    return y if same else None


def expressible(dialect: str) -> list[str]:
    """Element types a model of this dialect can carry (a wrong type must still be writable)."""
    names = generatable(dtypes.NAMES)
    return [t for t in names if dtypes.get(t).openvino is not None] if dialect == "openvino" else names


def wrong_type(port_name: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        port = d.port(port_name)
        others = [t for t in expressible(d.spec.dialect) if t not in port.types and t != "string"] + (
            ["string"] if "string" not in port.types else [])
        new = draw(st.sampled_from(others))
        kept = None if d.input(port_name) is None else _convert(d.input(port_name), new)
        if kept is not None and draw(st.booleans()):
            d.dtypes[d.port_index(port_name)] = new
            d.set_input(port_name, kept)
        else:
            _redraw_input(draw, d, port_name, dtype=new)
    return breaker


def mismatched_type(port_name: str, other: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        other_type = d.dtypes[d.port_index(other)]
        choices = [t for t in generatable(d.port(port_name).types) if t != other_type]
        _redraw_input(draw, d, port_name, dtype=draw(st.sampled_from(choices)))
    return breaker


def wrong_rank(port_name: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        port = d.port(port_name)
        options = ([port.rank_min - 1] if port.rank_min > 0 else []) + ([port.rank_max + 1] if port.rank_max is not None else [])
        _redraw_input(draw, d, port_name, rank=draw(st.sampled_from(options)))
    return breaker


def disallowed_value(attr: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        a = d.spec.attribute(attr)
        allowed = list(a.allowed)
        if all(isinstance(v, str) for v in allowed):
            bad = st.sampled_from([v.upper() if v.upper() not in allowed else v + "_" for v in allowed] + ["opconform_bad"])
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in allowed):
            bad = st.sampled_from([max(allowed) + 1, min(allowed) - 1])
        elif all(isinstance(v, tuple) and v and all(isinstance(x, str) for x in v) for v in allowed):
            # allowed lists of names (RNN's activations): one entry of an allowed list misspelt
            bad = st.sampled_from(allowed).flatmap(
                lambda v: st.integers(0, len(v) - 1).map(lambda i: list(v[:i]) + [v[i] + "_"] + list(v[i + 1:])))
        else:
            bad = st.nothing()
        d.attributes[attr] = draw(bad.filter(lambda v: v not in allowed))
    return breaker


def out_of_range(attr: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        lo, hi = attribute_bounds(d, d.spec.attribute(attr))
        step = 1 if d.spec.attribute(attr).type == "int" else 0.5
        options = ([lo - step, lo - 3 * step] if lo is not None else []) + ([hi + step, hi + 3 * step] if hi is not None else [])
        d.attributes[attr] = draw(st.sampled_from(options))
    return breaker


def generic_breakers(spec: SpecVersion) -> dict[str, Breaker]:
    """Breakers for the implicit relations the loader adds for this spec (only those that can break)."""
    out: dict[str, Breaker] = {}
    first_of_var: dict[str, str] = {}
    for p in spec.inputs:
        if p.variadic:
            continue
        if [t for t in expressible(spec.dialect) if t not in p.types]:
            out[f"{p.name}_type"] = wrong_type(p.name)
        if p.type_var and p.type_var in first_of_var and len(generatable(p.types)) > 1:
            out[f"{p.name}_type_matches_{first_of_var[p.type_var]}"] = mismatched_type(p.name, first_of_var[p.type_var])
        elif p.type_var:
            first_of_var.setdefault(p.type_var, p.name)
        if p.rank_min > 0 or p.rank_max is not None:
            out[f"{p.name}_rank"] = wrong_rank(p.name)
    for a in spec.attributes:
        if a.allowed is not None:
            out[f"{a.name}_allowed"] = disallowed_value(a.name)
        if a.range is not None and a.type in ("int", "float") and a.range != (None, None):
            out[f"{a.name}_range"] = out_of_range(a.name)
    names = {a.name for a in spec.attributes}
    for r in spec.relations:  # `a != b` between two attributes (ReverseSequence's axes): a set to b
        pair = _differing_attributes(r.check, names)
        if pair is not None:
            out.setdefault(r.id, equal_attributes(*pair))
        typed = _element_type_test(r.check, {p.name for p in spec.inputs if not p.variadic})
        if typed is not None:  # `dtype(X) == 'string'` (TfIdfVectorizer's pool_strings): X of another admitted type
            out.setdefault(r.id, failing_type(*typed))
    return out


def _element_type_test(check: str, inputs: set[str]) -> tuple[str, Callable[[str], bool]] | None:
    """(X, type name -> whether the check holds) for `dtype(X) == c`, `!= c`, `in (..)`, `not in (..)`."""
    try:
        tree = expr.parse(check).body
    except expr.ExprError:
        return None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.left, ast.Call)
            and getattr(tree.left.func, "id", "") == "dtype" and len(tree.left.args) == 1
            and isinstance(tree.left.args[0], ast.Name) and tree.left.args[0].id in inputs):
        return None
    op, right = tree.ops[0], tree.comparators[0]
    listed = right.elts if isinstance(right, (ast.Tuple, ast.List)) else [right]
    if not all(isinstance(e, ast.Constant) for e in listed):
        return None
    values = {e.value for e in listed}
    tests = {ast.Eq: lambda t: t in values, ast.In: lambda t: t in values,
             ast.NotEq: lambda t: t not in values, ast.NotIn: lambda t: t not in values}
    test = tests.get(type(op))
    return None if test is None else (tree.left.args[0].id, test)


def failing_type(port_name: str, holds: Callable[[str], bool]) -> Breaker:
    """The input drawn again in an element type its port admits under which the test fails."""
    def breaker(draw, d: Draft) -> None:
        choices = [t for t in generatable(d.port(port_name).types) if not holds(t)]
        if choices and d.input(port_name) is not None:
            _redraw_input(draw, d, port_name, dtype=draw(st.sampled_from(choices)))
    return breaker


def _differing_attributes(check: str, names: set[str]) -> tuple[str, str] | None:
    try:
        tree = expr.parse(check).body
    except expr.ExprError:
        return None
    if (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.NotEq)
            and isinstance(tree.left, ast.Name) and isinstance(tree.comparators[0], ast.Name)
            and {tree.left.id, tree.comparators[0].id} <= names):
        return tree.left.id, tree.comparators[0].id
    return None


def equal_attributes(a: str, b: str) -> Breaker:
    def breaker(draw, d: Draft) -> None:
        d.attributes[a] = d.resolved[b]
    return breaker


def _retype(draw, d: Draft, everywhere: bool) -> None:
    """Another element type for one present input, or for every present input."""
    present = [k for k, x in enumerate(d.inputs) if isinstance(x, np.ndarray)]  # a container is redrawn by perturb
    if not present:
        return
    picked = present if everywhere else [draw(st.sampled_from(present))]
    new = draw(st.sampled_from([t for t in expressible(d.spec.dialect) if t != "string"]))
    for k in picked:
        d.inputs[k] = draw(values.arrays(new, d.inputs[k].shape))


def perturb(draw, d: Draft) -> None:
    """Fallback for a relation no breaker knows: change one attribute or one input at random
    (a wider attribute value, another shape or rank, an extreme element). Cheap relations over
    shapes and attributes break this way often enough; the rest need a hook."""
    drawable = [a for a in d.spec.attributes if a.type not in UNDRAWN]
    choices = ["attribute"] * bool(drawable) + ["shape", "rank", "value", "dtype", "dtype_all"] * bool(
        any(x is not None for x in d.inputs))
    what = draw(st.sampled_from(choices))
    if what.startswith("dtype"):
        _retype(draw, d, everywhere=what == "dtype_all")
        return
    if what == "attribute":
        a = draw(st.sampled_from(drawable))
        wide = attribute_value(a) if a.type not in ("int",) else st.integers(-8, 8)
        d.attributes[a.name] = draw(wide)
        return
    i = draw(st.sampled_from([k for k, x in enumerate(d.inputs) if x is not None]))
    x = d.inputs[i]
    if not isinstance(x, np.ndarray):  # a sequence, optional or map: another one of its type
        d.inputs[i] = input_array(draw, d, i)
    elif what == "shape":
        d.inputs[i] = input_array(draw, d, i, shape=draw(shapes.shapes(x.ndim, d.profile)))
    elif what == "rank":
        d.inputs[i] = input_array(draw, d, i, rank=draw(st.integers(max(0, x.ndim - 1), x.ndim + 1)))
    elif x.size:
        name = dtypes.name_of(x.dtype)
        flat = x.reshape(-1).copy()
        k = draw(st.integers(0, flat.size - 1))
        if dtypes.get(name).kind in ("int", "uint"):
            span = int(max(x.shape, default=0)) + 1
            flat[k] = draw(st.sampled_from([span, -span - 1, span + 1, -1]).filter(
                lambda v: ml_dtypes.iinfo(x.dtype).min <= v <= ml_dtypes.iinfo(x.dtype).max))
        else:
            flat[k] = draw(values.elements(name))
        d.inputs[i] = flat.reshape(x.shape)
