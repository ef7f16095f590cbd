"""Tensor-valued attributes (ConstantOfShape's `value`): drawn from their declaration
(`tensor: {type: T2, shape: [1]}`), and broken by the generic forms of their relations.

    >>> strategy(spec.attribute("value"))   # SearchStrategy[np.ndarray]: [0.5] float32, [7] int8, ...
    >>> breakers(spec)                      # {"value_one_element": ..., "value_type": ...}

The relation forms broken here: `size(a) == E` (a value of one element more) and
`dtype(a) in (...)` (a string tensor, which no numeric type list admits, or a value of another
element type the list leaves out).
"""
from __future__ import annotations

import ast
from typing import Callable

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import values
from opconform.model import Attribute, SpecVersion


_ANY_SHAPE = st.lists(st.integers(0, 3), max_size=3).map(tuple)  # a tensor attribute declared without a shape


def strategy(a: Attribute) -> st.SearchStrategy[np.ndarray]:
    """Values of a declared tensor attribute: an admitted element type (evenly), then an array of
    the declared shape (any small one, rank 0 to 3, where none is declared)."""
    types = [t for t in a.tensor_types if t in dtypes.BY_NAME and dtypes.get(t).numpy is not None]
    shapes = _ANY_SHAPE if a.tensor_shape is None else st.just(a.tensor_shape)
    return st.tuples(st.sampled_from(types), shapes).flatmap(lambda ts: values.arrays(*ts))


def breakers(spec: SpecVersion) -> dict[str, Callable]:
    """Relation id -> breaker for the relations of declared tensor attributes in a form above."""
    declared = {a.name: a for a in spec.attributes if a.type == "tensor" and a.tensor_types}
    out: dict[str, Callable] = {}
    for r in spec.relations:
        form = _form(r.check, declared)
        if form is not None:
            out[r.id] = form
    return out


def _form(check: str, declared: dict[str, Attribute]) -> Callable | None:
    tree = ast.parse(check, mode="eval").body
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.left, ast.Call)
            and isinstance(tree.left.func, ast.Name) and len(tree.left.args) == 1
            and isinstance(tree.left.args[0], ast.Name) and tree.left.args[0].id in declared):
        return None
    a = declared[tree.left.args[0].id]
    if tree.left.func.id == "size" and isinstance(tree.ops[0], ast.Eq) and a.tensor_shape is not None:
        return _one_more_element(a)
    if tree.left.func.id == "dtype" and isinstance(tree.ops[0], ast.In):
        listed = tree.comparators[0]
        if isinstance(listed, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in listed.elts):
            return _unlisted_type(a, {e.value for e in listed.elts})
    return None


def _one_more_element(a: Attribute) -> Callable:
    def breaker(draw, d) -> None:
        size = int(np.prod(a.tensor_shape))
        d.attributes[a.name] = draw(strategy(a).map(lambda x: np.resize(x.reshape(-1), size + 1)))
    return breaker


def _unlisted_type(a: Attribute, listed: set[str]) -> Callable:
    """A value in an ONNX element type the list leaves out (a string tensor where it is one of them:
    no numeric list admits it)."""
    others = [t for t, info in dtypes.BY_NAME.items()
              if t not in listed and info.numpy is not None and info.onnx is not None]

    def breaker(draw, d) -> None:
        shape = a.tensor_shape if a.tensor_shape is not None else draw(_ANY_SHAPE)
        if not others:
            return  # every type is listed: nothing breaks it
        t = "string" if "string" in others and draw(st.booleans()) else draw(st.sampled_from(others))
        if t == "string":
            d.attributes[a.name] = np.full(shape, draw(st.sampled_from(["a", "0"])), dtype=object)
        else:
            d.attributes[a.name] = draw(values.arrays(t, shape))
    return breaker
