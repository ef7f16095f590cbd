"""Tensor-valued attributes (ConstantOfShape's `value`): drawn from their declaration
(`tensor: {type: T2, shape: [1]}`), and broken by the generic forms of their relations.

    >>> strategy(spec.attribute("value"))   # SearchStrategy[np.ndarray]: [0.5] float32, [7] int8, ...
    >>> breakers(spec)                      # {"value_one_element": ..., "value_type": ...}

The relation forms broken here: `size(a) == E` (a value of one element more) and
`dtype(a) in (...)` (a string tensor, which no numeric type list admits).
"""
from __future__ import annotations

import ast
from typing import Callable

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import values
from opconform.model import Attribute, SpecVersion


def strategy(a: Attribute) -> st.SearchStrategy[np.ndarray]:
    """Values of a declared tensor attribute: an admitted element type (evenly), then an array of
    the declared shape."""
    types = [t for t in a.tensor_types if t in dtypes.BY_NAME and dtypes.get(t).numpy is not None]
    shape = a.tensor_shape
    return st.sampled_from(types).flatmap(lambda t: values.arrays(t, shape))


def breakers(spec: SpecVersion) -> dict[str, Callable]:
    """Relation id -> breaker for the relations of declared tensor attributes in a form above."""
    declared = {a.name: a for a in spec.attributes if a.type == "tensor" and a.tensor_shape is not None}
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
    if tree.left.func.id == "size" and isinstance(tree.ops[0], ast.Eq):
        return _one_more_element(a)
    if tree.left.func.id == "dtype" and isinstance(tree.ops[0], ast.In):
        return _text_value(a)
    return None


def _one_more_element(a: Attribute) -> Callable:
    def breaker(draw, d) -> None:
        size = int(np.prod(a.tensor_shape))
        d.attributes[a.name] = draw(strategy(a).map(lambda x: np.resize(x.reshape(-1), size + 1)))
    return breaker


def _text_value(a: Attribute) -> Callable:
    def breaker(draw, d) -> None:
        d.attributes[a.name] = np.full(a.tensor_shape, draw(st.sampled_from(["a", "0"])), dtype=object)
    return breaker
