"""Row pins: the choices a covering-array row fixes, honoured where a case is drawn.

A draft may carry a `row` (factor name -> value, see generator/factors.py): the element type of
a type variable, an attribute's value or class of values, whether an optional input is given,
which outputs are asked. The generic steps (families/default.py) and the shared hook helpers
(`axis`, `given`) ask this module instead of drawing those choices freely. Each helper draws what
the unpinned path draws, so a pinned and an unpinned strategy consume choices alike, and then
lets the pin decide. Hooks that choose by themselves need no change: the strategy compares the
finished case with its row (generator/exercised.py) and rejects a case that does not hold it, so
a pin is never silently dropped.

    >>> from opconform.generator import pins
    >>> pins.pinned(d, "attr:axis")          # the row's value, or pins.UNPINNED
    >>> pins.input_values(draw, d, 0)         # input 0 redrawn to hold the row's value class
"""
from __future__ import annotations

from typing import Any, Sequence

from hypothesis import strategies as st

from opconform import specs
from opconform.generator import value_classes, values
from opconform.generator.draft import Draft
from opconform.generator.factors import (
    ABOVE_MIN, BELOW_MAX, GIVEN, INTERIOR, NEGATIVE, NON_DEFAULT, NON_NEGATIVE, OMITTED, Class, output_set_allowed,
    outputs_factor, type_factor_name,
)
from opconform.model import Attribute, Port


class _Unpinned:
    def __repr__(self) -> str:
        return "UNPINNED"


UNPINNED: Any = _Unpinned()
_SPAN = 4  # how far past an open bound a class value is drawn (values stay small and readable)


def pinned(d: Draft, factor: str) -> Any:
    """The row's value for a factor, or UNPINNED."""
    return d.row.get(factor, UNPINNED)


def element_type(draw, d: Draft, port: Port, options: Sequence[str]) -> str:
    """A port's element type: the row's when it pins the port's type factor, else picked evenly."""
    drawn = values.pick(draw, options)
    pin = pinned(d, type_factor_name(port))
    return pin if pin is not UNPINNED and pin in options else drawn


def present(draw, d: Draft, port: Port) -> bool:
    """Whether an optional input is given: the row's `input:<name>` pin, else drawn."""
    drawn = draw(st.booleans())
    pin = pinned(d, f"input:{port.name}")
    return drawn if pin is UNPINNED else bool(pin)


def outputs(draw, d: Draft) -> list[bool]:
    """Outputs asked: the row's `outputs` tuple, else required ones and each optional one either
    way; for a spec with output sets, one of the sets its attributes allow (evenly)."""
    drawn = [draw(st.booleans()) if p.optional else True for p in d.spec.outputs]
    pin = pinned(d, "outputs")
    if pin is not UNPINNED:
        return list(pin)
    if d.spec.output_sets:
        env = specs.environment(d.spec, d.inputs, d.attributes)
        sets = [v for v in outputs_factor(d.spec).values if output_set_allowed(d.spec, v, env)]
        return list(values.pick(draw, sets)) if sets else drawn
    return drawn


def given(draw, d: Draft, attribute: str) -> bool:
    """For a hook that sets an optional attribute itself: set it (True) or leave it omitted.
    Pinned OMITTED: no; pinned to anything else: yes; unpinned: drawn."""
    drawn = draw(st.booleans())
    pin = pinned(d, f"attr:{attribute}")
    return drawn if pin is UNPINNED else pin is not OMITTED


def axis(d: Draft, name: str, drawn: int | None, rank: int) -> int | None:
    """An axis attribute a hook drew (None: omitted) turned into the one the row asks for: omitted,
    a concrete value, or the same axis counted from the other end for the negative / non-negative
    class. No new draw, so a hook's draws stay aligned. Rank 0 has no axis: the drawn value stays
    (the case then does not hold the row and is rejected)."""
    pin = pinned(d, f"attr:{name}")
    if pin is UNPINNED:
        return drawn
    if pin is OMITTED:
        return None
    if pin is NEGATIVE or pin is NON_NEGATIVE:
        if rank <= 0:
            return drawn
        base = 0 if drawn is None else int(drawn) % rank
        return base - rank if pin is NEGATIVE else base
    if isinstance(pin, Class):
        return drawn
    return int(pin)


def set_axis(d: Draft, name: str, value: int | None) -> None:
    """Set or omit an axis attribute (None: omitted)."""
    if value is None:
        d.attributes.pop(name, None)
    else:
        d.attributes[name] = value


def class_values(a: Attribute, cls: Class, bounds: tuple[Any, Any] | None, base: st.SearchStrategy) -> st.SearchStrategy:
    """Concrete values of one attribute class. `bounds`: the range with expressions evaluated
    (None: the declared fixed range); `base`: the attribute's unpinned value strategy."""
    lo, hi = bounds if bounds is not None else (a.range if a.range is not None else (None, None))
    lo = None if isinstance(lo, str) else lo
    hi = None if isinstance(hi, str) else hi
    if cls is GIVEN:
        return base
    if cls is NON_DEFAULT:
        return base.filter(lambda v: a.default is None or v != a.default)
    if a.type == "int":
        if cls is NEGATIVE:
            return _ints(-_SPAN if lo is None else max(lo, -_SPAN), -1 if hi is None else min(hi, -1))
        if cls is NON_NEGATIVE:
            return _ints(0 if lo is None else max(lo, 0), _SPAN - 1 if hi is None else min(hi, _SPAN - 1))
        if cls is ABOVE_MIN and lo is not None:
            return _ints(lo + 1, lo + _SPAN if hi is None else min(hi, lo + _SPAN))
        if cls is BELOW_MAX and hi is not None:
            return _ints(hi - _SPAN if lo is None else max(lo, hi - _SPAN), hi - 1)
        if cls is INTERIOR and lo is not None and hi is not None:
            return _ints(lo + 1, hi - 1)
    if a.type == "float":
        if cls is ABOVE_MIN and lo is not None:
            return st.floats(lo, lo + _SPAN if hi is None else hi, exclude_min=True, allow_nan=False, width=32)
        if cls is BELOW_MAX and hi is not None:
            return st.floats(hi - _SPAN if lo is None else lo, hi, exclude_max=True, allow_nan=False, width=32)
        if cls is INTERIOR and lo is not None and hi is not None:
            return st.floats(lo, hi, exclude_min=True, exclude_max=True, allow_nan=False, width=32)
    return st.nothing()  # a class this attribute cannot take: the row is not drawn


def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi) if lo <= hi else st.nothing()


def input_values(draw, d: Draft, i: int) -> None:
    """Input i made to hold the row's `values:<input>` class (value_classes.fill), when the row
    pins one and the input is given; a scalar becomes rank 1 where the port allows, so that every
    class the row allows fits in (see value_classes.fill). Call it after the input is drawn (a hook
    that redraws the input calls it again at the end). A class the row's element types and
    attributes leave undefined (NaN to int32) is left as drawn: the case then does not hold the
    row and is rejected."""
    port = d.spec.inputs[min(i, len(d.spec.inputs) - 1)]
    pin = pinned(d, value_classes.factor_name(port))
    x = d.inputs[i] if i < len(d.inputs) else None
    if pin is UNPINNED or x is None:
        return
    names = [p.name for p in d.spec.inputs]
    _, readers = value_classes.reads(d.spec, port)
    types = {n: (d.dtypes[names.index(n)] if d.present[names.index(n)] else None) for n in readers}
    allowed = value_classes.allowed_members(d.spec, port.name, d.dtypes[i], d.attributes, types)
    if pin not in allowed or (pin == values.EMPTY_TENSOR and x.ndim == 0 and port.rank_max == 0):
        return
    grow = port.rank_max is None or port.rank_max >= 1
    d.inputs[i] = value_classes.fill(draw, d.dtypes[i], x.shape, pin, allowed, grow=grow)
