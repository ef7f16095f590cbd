"""The sequence family: operators on sequences and optionals whose ports hold one element type
in different containers (SequenceInsert's seq(tensor(E)) and tensor E, Optional's E and
optional(E)). ONNX writes them as separate type variables (S and T), so independent draws would
agree one time in fifteen: here one element type is drawn for the case and every linked port
takes its type holding that element type. A port whose element types are another set
(SequenceAt's int32/int64 position) is drawn on its own.

The relation that ties them is written `element_type_matches` in each spec; its breaker redraws
the last linked tensor or sequence input with another element type. A `type_proto` attribute
(Optional's type) is broken with a type outside its allowed list that a model can still hold.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from opconform import containers, dtypes
from opconform.generator import pins, values
from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.families.default import generatable, input_array

RELATION = "element_type_matches"


def _element_set(types: tuple[str, ...]) -> frozenset[str]:
    return frozenset(containers.element_type(t) for t in generatable(types))


def linked_ports(d: Draft) -> list[int]:
    """Indices of the input ports that hold the case's one element type (the first port's set)."""
    return list(_linked(tuple(p.types for p in d.spec.inputs)))


@lru_cache(maxsize=256)  # per spec version's port types: asked once per drawn draft
def _linked(port_types: tuple[tuple[str, ...], ...]) -> tuple[int, ...]:
    sets = [_element_set(types) for types in port_types]
    first = next((s for s, types in zip(sets, port_types) if any(containers.is_container_type(t) for t in types)), None)
    return tuple(i for i, s in enumerate(sets) if first is not None and s == first)


def element_types(draw, d: Draft) -> None:
    """One element type for the linked ports (pinned by the first linked port's row when it pins
    one), each linked port's type the one of its types holding it; other ports as by default."""
    linked = linked_ports(d)
    d.dtypes = []
    element = None
    by_var: dict[str, str] = {}
    for i, p in enumerate(d.spec.inputs):
        options = generatable(p.types)
        if i in linked:
            if element is None:
                element = containers.element_type(pins.element_type(draw, d, p, options))
            options = [t for t in options if containers.element_type(t) == element]
        if p.type_var is not None and p.type_var in by_var:
            d.dtypes.append(by_var[p.type_var])
            continue
        chosen = pins.element_type(draw, d, p, options)
        if p.type_var is not None:
            by_var[p.type_var] = chosen
        d.dtypes.append(chosen)


def inputs(draw, d: Draft) -> None:
    """The default inputs; then a map's keys drawn among the entries of the list attribute of its
    key type where the version sets one (DictVectorizer's vocabulary: a key outside it is
    undefined, so independent keys would almost never be valid), a subset in any order."""
    default.inputs(draw, d)
    for i, x in enumerate(d.inputs):
        if not isinstance(x, containers.MapValue):
            continue
        listed = _key_list(d, containers.parse_type(x.type).key)
        if listed is None:
            continue
        picked = draw(st.lists(st.sampled_from(listed), unique=True, max_size=len(listed))) if listed else []
        elem = containers.element_type(x.type)
        keys = np.array(picked, dtype=object if isinstance(listed[0] if listed else "", str) else np.int64)
        d.inputs[i] = containers.MapValue(x.type, keys.reshape(-1), draw(values.arrays(elem, (len(picked),))))


def _key_list(d: Draft, key_type: str) -> list | None:
    """The distinct entries of the set list attribute whose element type is the map's key type."""
    wanted = "strings" if key_type == "string" else "ints"
    for a in d.spec.attributes:
        if a.type == wanted and a.name in d.attributes:
            return list(dict.fromkeys(d.attributes[a.name]))
    return None


def break_element_type(draw, d: Draft) -> None:
    """The first present linked input redrawn holding another element type than the others."""
    linked = [i for i in linked_ports(d) if i < len(d.inputs) and d.inputs[i] is not None]
    if len(linked) < 2:
        return
    i = linked[-1]
    have = containers.element_type(d.dtypes[i])
    others = [t for t in generatable(d.spec.inputs[i].types) if containers.element_type(t) != have
              and containers.parse_type(t).kind == containers.parse_type(d.dtypes[i]).kind]
    if not others:
        return
    d.dtypes[i] = draw(st.sampled_from(others))
    d.inputs[i] = input_array(draw, d, i)


def break_type_allowed(draw, d: Draft) -> None:
    """A `type_proto` attribute (Optional's type) naming a type the version does not admit but a
    model can still write: a tensor or sequence of an element type outside its list (none where
    the list holds every type opconform knows: the draft then stays valid and is dropped)."""
    for a in d.spec.attributes:
        if a.type == "type_proto" and a.allowed is not None:
            outside = [t for t in generatable(dtypes.NAMES) if t not in a.allowed]
            outside += [f"seq(tensor({t}))" for t in outside]
            if outside:
                d.attributes[a.name] = draw(st.sampled_from(outside))


BREAK = {RELATION: break_element_type, "type_allowed": break_type_allowed}
