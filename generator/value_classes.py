"""Value classes of conversion inputs: which special values a row may ask the input to hold.

An output port that says `converted_from: <input>` (Cast's `output`, CastLike's) holds that
input's values converted to the output's element type. For such an input the generator has a
factor `values:<input>` whose values are the element classes of its types (`values.value_classes`:
zero, -0.0, NaN, +-inf, subnormals, max/lowest, just past the next narrower type, -1, ...). A row
pins one class; the input then holds it first and every other class the row leaves defined after
it (`fill`), so one case per (source type, target type) pair -- what a 2-wise covering gives --
crosses every class with that target.

Which classes a row may hold is read from the spec's own relations, never written per operator:
a class member is *defined* under a row's element types and attributes when every relation that
holds for a plain zero input still holds for that member (Cast: NaN -> int32 breaks
`float_to_int_in_range`, so a valid row never pairs them; NaN -> bool breaks nothing).

    >>> allowed_members(spec, "input", "float32", {"to": 9}, {})   # {"nan": (bits...), "+inf": ...}
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from opconform import dtypes, specs
from opconform.generator import element_edges as values  # the edge values; Hypothesis only where fill() draws
from opconform.model import Port, SpecVersion
from opconform.specs import expr

Members = dict[str, tuple]  # class -> members in storage form (bit patterns for floats) that are defined


def converted_inputs(spec: SpecVersion) -> list[Port]:
    """The inputs some output of the spec converts (`converted_from`), in input order."""
    names = {p.converted_from for p in spec.outputs if p.converted_from}
    return [p for p in spec.inputs if p.name in names and not p.variadic]


def factor_name(port: Port) -> str:
    return f"values:{port.name}"


def factor_values(types: tuple[str, ...]) -> tuple[str, ...]:
    """Every element class some of the element types has, in values.CLASS_ORDER. Not the empty
    tensor: a 2-wise covering gives most (source, target) type pairs one row, and that row's
    input must hold every class the pair allows (see fill); an empty row would hold none.
    Empty tensors of every rank come from the shapes of every other draw."""
    own = {c for t in types for c in values.value_classes(t)} - {values.EMPTY_TENSOR}
    return tuple(c for c in values.CLASS_ORDER if c in own)


# id(spec) -> (spec, {port: reads}); the spec is kept so its id is not reused
_READS: dict[int, tuple[SpecVersion, dict[str, tuple[frozenset[str], frozenset[str]]]]] = {}


def reads(spec: SpecVersion, port: Port) -> tuple[frozenset[str], frozenset[str]]:
    """(attributes, other inputs) that the relations reading `port` also read (through symbols):
    the context on which the definedness of a value class depends."""
    entry = _READS.get(id(spec))
    if entry is None or entry[0] is not spec:
        entry = _READS[id(spec)] = (spec, {})
    if port.name not in entry[1]:
        entry[1][port.name] = _reads(spec, port)
    return entry[1][port.name]


def _reads(spec: SpecVersion, port: Port) -> tuple[frozenset[str], frozenset[str]]:
    attrs, inputs = set(), set()
    attribute_names = {a.name for a in spec.attributes}
    input_names = {p.name for p in spec.inputs}
    for r in spec.relations:
        names = set()
        for text in (r.check, r.when):
            if text:
                names |= _names(spec, text, set())
        if port.name in names:
            attrs |= names & attribute_names
            inputs |= (names & input_names) - {port.name}
    return frozenset(attrs), frozenset(inputs)


def _names(spec: SpecVersion, text: str, seen: set[str]) -> set[str]:
    out = set(expr.names(text))
    for name in list(out & set(spec.symbols)):
        if name not in seen:
            seen.add(name)
            out |= _names(spec, spec.symbols[name], seen)
    return out


# (id(spec), port, dtype, context) -> (spec, members); the spec is kept so its id is not reused
_CACHE: dict[tuple, tuple[SpecVersion, Members]] = {}


def allowed_members(spec: SpecVersion, port_name: str, dtype: str, attributes: Mapping[str, Any],
                    types: Mapping[str, str | None]) -> Members:
    """Class -> the members of that class of `dtype` that keep every relation defined, with the
    given attributes (as set; omitted ones take their defaults) and element types of the other
    inputs (None: absent). Classes with no such member are left out. Only the attributes and
    inputs the relations read (see `reads`) matter; the answer is cached on them."""
    port = next(p for p in spec.inputs if p.name == port_name)
    attr_names, input_names = reads(spec, port)
    ctx_a = tuple(sorted((k, value_key(v)) for k, v in attributes.items() if k in attr_names))
    ctx_t = tuple(sorted((k, v) for k, v in types.items() if k in input_names))
    key = (id(spec), port_name, dtype, ctx_a, ctx_t)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    attrs = {k: v for k, v in attributes.items() if k in attr_names}
    found = _probe(spec, port, dtype, attrs, dict(ctx_t))
    _CACHE[key] = (spec, found)
    return found


def value_key(v: Any) -> Any:
    """A factor value as a hashable key that keeps True apart from 1 (an array: its repr).
    Here, not in tuple_coverage (which uses it too): tuple_coverage imports factors, which imports this."""
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return repr(v)


def _probe(spec: SpecVersion, port: Port, dtype: str, attrs: dict, types: dict) -> Members:
    scalar = port.rank_max == 0  # a scalar port: one member per probe, no empty tensor
    tail = (1,) * max(port.rank_min - 1, 0)

    def statuses(elements: list) -> dict[str, str]:
        x = _array(dtype, elements, () if scalar else (len(elements),) + tail)
        with np.errstate(all="ignore"):
            return {s.id: s.state for s in specs.check_all(spec, _inputs(spec, port, x, types), attrs)}

    # relations that hold for a plain zero are the ones a value can break; the others (shapes of
    # the probe's stand-in inputs) say nothing about values
    watched = [rid for rid, state in statuses([_zero(dtype)]).items() if state in _FINE]

    def defined(elements: list) -> bool:
        got = statuses(elements)
        return all(got[rid] in _FINE for rid in watched)

    out: Members = {}
    for cls, members in edge_elements(dtype).items():
        if not scalar and defined(list(members)):  # one probe for the class; per member only if it fails
            out[cls] = members
            continue
        ok = tuple(m for m in members if defined([m]))
        if ok:
            out[cls] = ok
    if not scalar and defined([]):
        out[values.EMPTY_TENSOR] = ()
    return out


_FINE = ("holds", "not-applicable")


def edge_elements(dtype: str) -> dict[str, tuple]:
    """Edge class -> members as elements in storage form (a complex element: the class's bit
    pattern as its real part, +0 as its imaginary part)."""
    classes = values.edge_values(dtype)
    if dtypes.get(dtype).kind == "complex":
        return {cls: tuple((m, 0) for m in members) for cls, members in classes.items()}
    return classes


def _array(dtype: str, elements: list, shape: tuple[int, ...]) -> np.ndarray:
    flat = [b for pair in elements for b in pair] if dtypes.get(dtype).kind == "complex" else list(elements)
    return values.from_elements(dtype, flat, shape)


def _zero(dtype: str) -> Any:
    """A plain zero element in storage form (bit pattern 0 is +0.0 for floats)."""
    kind = dtypes.get(dtype).kind
    return {"string": "0", "bool": False, "complex": (0, 0)}.get(kind, 0)


def _inputs(spec: SpecVersion, port: Port, x: np.ndarray, types: Mapping[str, str | None]) -> list:
    """The probe's inputs: `x` for the port; for an input of the context, a one-element zero of
    its element type (None: absent); other optional inputs absent, other required ones a zero of
    their first representable type."""
    out: list = []
    for p in spec.inputs:
        if p.name == port.name:
            out.append(x)
            continue
        t = types[p.name] if p.name in types else (None if p.optional else _first(p))
        out.append(None if t is None else _array(t, [_zero(t)], (1,)))
    return out


def _first(p: Port) -> str | None:
    return next((t for t in p.types if t in dtypes.BY_NAME and dtypes.get(t).numpy is not None), None)


def classes_held(x: np.ndarray | None) -> frozenset[str]:
    """The value classes an input holds: its edge classes, or the empty tensor."""
    if x is None:
        return frozenset()
    x = np.asarray(x)
    if x.size == 0:
        return frozenset({values.EMPTY_TENSOR})
    try:
        return frozenset(values.classes_in(x))
    except dtypes.UnknownElementType:
        return frozenset()


def fill(draw, dtype: str, shape: tuple[int, ...], pin: str, allowed: Members, grow: bool = True) -> np.ndarray:
    """An array of `dtype` that holds class `pin`, near `shape`. The empty tensor: `shape` with one
    side 0 (rank 0 becomes (0,)). Any other class: element 0 is of `pin`, the next ones walk
    through every other allowed class in turn (a member of each drawn), so one case crosses all
    of them with the row's target type; with `grow`, a scalar becomes rank 1 and the last side
    grows when there are fewer elements than classes (a converted input is elementwise: its shape
    is free), so every allowed class is held. Storage form as values.arrays."""
    from hypothesis import strategies as st

    from opconform.generator.values import MAX_DRAWN_ELEMENTS, codes as draw_codes

    if pin == values.EMPTY_TENSOR:
        sides = list(shape) or [1]
        sides[draw(st.integers(0, len(sides) - 1))] = 0
        return values.from_elements(dtype, [], tuple(sides))
    # rank 0 holds one class only; the crossing needs room, so a scalar becomes one element of rank 1
    sides = [max(int(s), 1) for s in shape] or ([1] if grow else [])
    order = [c for c in allowed if c != values.EMPTY_TENSOR]
    order = order[order.index(pin):] + order[:order.index(pin)]
    total = int(np.prod(sides, dtype=np.int64))
    if grow and sides and total < len(order):
        rest = int(np.prod(sides[:-1], dtype=np.int64))
        sides[-1] = -(-len(order) // rest)
        total = rest * sides[-1]
    n = min(total, MAX_DRAWN_ELEMENTS)
    codes = draw_codes(draw, n)  # one choice for the whole array: a member of each class in turn
    flat = [allowed[order[k % len(order)]][codes[k] % len(allowed[order[k % len(order)]])] for k in range(n)]
    block = _array(dtype, flat, (n,))
    return (block if n == total else np.resize(block, total)).reshape(tuple(sides))
