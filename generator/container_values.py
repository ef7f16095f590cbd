"""Drawing sequences, optionals and maps (opconform.containers) for a port whose type is one.

A sequence holds 0 .. profile.max_arity tensors of one element type and one rank; their shapes
are all the same or each its own (drawn either way: ConcatFromSequence needs the one, SequenceAt
is the more telling with the other). An optional is empty or holds a value of its inner type. A
map has distinct keys (small integers, int64's extremes, or short texts) and scalar values.
Everything is drawn through Hypothesis, so cases shrink: toward empty sequences, empty
optionals, empty maps.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from opconform import containers
from opconform.containers import ValueType
from opconform.generator import shapes, values
from opconform.generator.profiles import Profile

KEY_TEXTS = st.text("abcxyz", min_size=0, max_size=3)
KEY_INTS = st.one_of(st.integers(-3, 8), st.sampled_from([np.iinfo(np.int64).min, np.iinfo(np.int64).max]))


def strategy(type_text: str, profile: Profile, *, rank: int | None = None, same_shape: bool | None = None,
             min_length: int = 0) -> st.SearchStrategy[Any]:
    """Values of a canonical type string (a tensor type gives arrays of a drawn shape).
    `rank`: the rank of the tensors drawn (else any up to the profile's); `same_shape`: whether a
    sequence's tensors share one shape (else drawn); `min_length`: a sequence's least length."""
    return _of(containers.parse_type(type_text), profile, rank, same_shape, min_length)


def _of(t: ValueType, profile: Profile, rank: int | None, same_shape: bool | None, min_length: int) -> st.SearchStrategy[Any]:
    if t.kind == "tensor":
        return _tensor(t.elem, profile, rank)
    if t.kind == "optional":
        inner = _of(t.inner, profile, rank, same_shape, min_length)
        return st.one_of(st.just(None), inner).map(lambda v: containers.OptionalValue(str(t), v))
    if t.kind == "map":
        return _map(t, profile)
    return _sequence(t, profile, rank, same_shape, min_length)


@st.composite
def _tensor(draw, elem: str, profile: Profile, rank: int | None) -> np.ndarray:
    r = draw(st.integers(0, min(profile.max_rank, 3))) if rank is None else rank
    return draw(values.arrays(elem, draw(shapes.shapes(r, profile))))


@st.composite
def _sequence(draw, t: ValueType, profile: Profile, rank: int | None, same_shape: bool | None,
              min_length: int) -> containers.SequenceValue:
    n = draw(st.integers(min_length, max(min_length, profile.max_arity)))
    if t.inner.kind != "tensor":
        return containers.SequenceValue(str(t), tuple(draw(_of(t.inner, profile, rank, same_shape, 0)) for _ in range(n)))
    r = draw(st.integers(0, min(profile.max_rank, 3))) if rank is None else rank
    shared = draw(st.booleans()) if same_shape is None else same_shape
    first = draw(shapes.shapes(r, profile))
    items = []
    for _ in range(n):
        shape = first if shared else draw(shapes.shapes(r, profile))
        items.append(draw(values.arrays(t.inner.elem, shape)))
    return containers.SequenceValue(str(t), tuple(items))


@st.composite
def _map(draw, t: ValueType, profile: Profile) -> containers.MapValue:
    keys = draw(st.lists(KEY_TEXTS if t.key == "string" else KEY_INTS, max_size=profile.max_arity + 1, unique=True))
    vals = draw(values.arrays(t.inner.elem, (len(keys),)))
    k = np.array(keys, dtype=object if t.key == "string" else np.int64).reshape(-1)
    return containers.MapValue(str(t), k, vals)
