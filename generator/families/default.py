"""The default steps: every input drawn independently from its port declaration.

Each step is `step(draw, d: Draft) -> None` and fills in one part of the draft; a family module
or an operator hook overrides a step by defining a function with the same name (see
docs/generator-hooks.md). The order is: presence, element_types, attributes, inputs, outputs.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from opconform import containers, dtypes, specs
from opconform.specs import dialects, expr
from opconform.generator import container_values, domains, pins, shapes, tensor_attributes, values
from opconform.generator.draft import Draft
from opconform.generator.factors import NEGATIVE, NON_NEGATIVE, OMITTED, UNDRAWN, Class
from opconform.model import Attribute, Port

STEPS = ("presence", "element_types", "attributes", "inputs", "dependent_attributes", "outputs")


def generatable(types: tuple[str, ...]) -> list[str]:
    """The element types among `types` that NumPy can hold (so values can be drawn); a sequence,
    optional or map type when NumPy can hold its tensors' elements."""
    return [t for t in types if (t in dtypes.BY_NAME and dtypes.get(t).numpy is not None)
            or (containers.is_container_type(t) and containers.drawable(t))]


def presence(draw, d: Draft) -> None:
    """Which inputs are present: required ones always, optional ones either way; a variadic
    last port gets its arity here (as repeated entries of `present`)."""
    d.present = []
    for p in d.spec.inputs:
        if p.variadic:
            arity = draw(st.integers(p.min_arity, max(p.min_arity, d.profile.max_arity)))
            d.present.extend([True] * arity)
        else:
            d.present.append(pins.present(draw, d, p) if p.optional else True)
    d.constant_inputs = [port_of(d, i).constant for i in range(len(d.present))]


def port_of(d: Draft, i: int) -> Port:
    """The port of concrete input i (the variadic last port covers every later input)."""
    return d.spec.inputs[min(i, len(d.spec.inputs) - 1)]


def element_types(draw, d: Draft) -> None:
    """One element type per type variable (shared by its ports), one per other port."""
    by_var: dict[str, str] = {}
    d.dtypes = []
    for p in d.spec.inputs:
        if p.type_var is not None:
            if p.type_var not in by_var:
                by_var[p.type_var] = pins.element_type(draw, d, p, generatable(p.types))
            d.dtypes.append(by_var[p.type_var])
        else:
            d.dtypes.append(pins.element_type(draw, d, p, generatable(p.types)))


def is_dependent(a: Attribute) -> bool:
    """True when the attribute's range is written in terms of inputs (e.g. [-rank(data), rank(data) - 1])."""
    return a.range is not None and any(isinstance(b, str) for b in a.range)


def attribute_bounds(d: Draft, a: Attribute) -> tuple[Any, Any]:
    """The attribute's range with expression bounds evaluated on the draft's inputs."""
    if a.range is None:
        return None, None
    env = specs.environment(d.spec, d.inputs, d.attributes)
    return tuple(expr.evaluate(b, env) if isinstance(b, str) else b for b in a.range)


def attribute_value(a: Attribute, bounds: tuple[Any, Any] | None = None, nonempty: bool = False) -> st.SearchStrategy[Any]:
    """Values an attribute may take by its declaration (allowed list, range; small otherwise).
    `bounds`: the range with expressions already evaluated (see attribute_bounds); `nonempty`:
    lists of one element or more (an ONNX node cannot hold an empty list attribute)."""
    least = 1 if nonempty else 0
    if a.allowed is not None:
        return st.sampled_from(list(a.allowed))
    if a.domain is not None and a.type in ("int", "float"):  # what models use, inside the domain
        lo, hi = bounds if bounds is not None else (a.range if a.range is not None and not is_dependent(a) else (None, None))
        inside = domains.inside(a)
        return inside if lo is None and hi is None else inside.filter(lambda v: _within(v, lo, hi))
    if a.type == "int":
        lo, hi = bounds if bounds is not None else (a.range if a.range is not None and not is_dependent(a) else (None, None))
        if lo is not None and hi is not None and lo > hi:
            return st.nothing()
        if lo is None and hi is None:
            lo, hi = -4, 4
        elif hi is None:
            hi = lo + 4
        elif lo is None:
            lo = hi - 4
        return st.integers(lo, hi)
    if a.type == "float":
        lo, hi = bounds if bounds is not None else (a.range if a.range is not None and not is_dependent(a) else (None, None))
        return st.floats(-4.0 if lo is None else lo, 4.0 if hi is None else hi, allow_nan=False, width=32)
    if a.type == "bool":
        return st.booleans()
    if a.type == "string":
        return st.text("abc", min_size=1, max_size=3)
    if a.type == "ints":
        return st.lists(st.integers(-4, 4), min_size=least, max_size=4)
    if a.type == "floats":
        return st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=least, max_size=4)
    if a.type == "strings":
        return st.lists(st.text("abc", min_size=1, max_size=3), min_size=least, max_size=3)
    if a.type == "tensor" and a.tensor_types:
        return tensor_attributes.strategy(a)
    raise NotImplementedError(f"no generic strategy for attributes of type {a.type!r}; write a hook")


def _within(v: Any, lo: Any, hi: Any) -> bool:
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def attributes(draw, d: Draft) -> None:
    """Every attribute either omitted (taking its default) or set explicitly; required ones always set.
    An explicit value equal to the default is drawn too: "set explicitly" differs from "omitted"."""
    d.attributes = {}
    for a in d.spec.attributes:
        if not is_dependent(a) and a.type not in UNDRAWN:
            _draw_attribute(draw, d, a, None)


def _draw_attribute(draw, d: Draft, a: Attribute, bounds: tuple[Any, Any] | None) -> None:
    pin = pins.pinned(d, f"attr:{a.name}")
    if pin is not pins.UNPINNED:
        _pinned_attribute(draw, d, a, bounds, pin)
        return
    explicit = a.required or draw(st.booleans())
    if not explicit:
        return
    strategy = attribute_value(a, bounds, nonempty=dialects.is_onnx(d.spec.dialect))
    if a.default is not None:
        strategy = st.one_of(st.just(a.default), strategy)
    d.attributes[a.name] = draw(strategy)


def _pinned_attribute(draw, d: Draft, a: Attribute, bounds: tuple[Any, Any] | None, pin: Any) -> None:
    """The row's value: omitted, the concrete value, or one drawn from its class."""
    if pin is OMITTED:
        d.attributes.pop(a.name, None)
    elif isinstance(pin, Class):
        base = attribute_value(a, bounds, nonempty=dialects.is_onnx(d.spec.dialect))  # no empty list in an ONNX node
        d.attributes[a.name] = draw(pins.class_values(a, pin, bounds, base))
    else:
        d.attributes[a.name] = pin


def dependent_attributes(draw, d: Draft) -> None:
    """Attributes whose range depends on the inputs, drawn within the evaluated range (an
    unevaluable range, e.g. on an absent input, leaves the attribute omitted)."""
    for a in d.spec.attributes:
        if is_dependent(a) and a.name not in d.attributes:
            try:
                bounds = attribute_bounds(d, a)
            except expr.ExprError:
                continue
            _draw_attribute(draw, d, a, bounds)


def input_shape(draw, d: Draft, i: int, *, rank: int | None = None) -> tuple[int, ...]:
    """A shape for concrete input i: a rank within its port's bounds (unless given), small sides."""
    if rank is None:
        port = port_of(d, i)
        lo, hi = shapes.rank_bounds(port, d.profile)
        if lo < 1 <= hi and _axis_pinned_against(d, port):
            rank = draw(st.integers(1, hi))  # a rank-0 input has no axis to count from either end
        else:
            rank = draw(shapes.ranks(port, d.profile))
    return draw(shapes.shapes(rank, d.profile))


def _axis_pinned_against(d: Draft, port: Port) -> bool:
    """Whether the row pins an attribute whose range counts this input's axes to the negative
    or non-negative class (QuantizeLinear's axis in [-rank(x), rank(x) - 1])."""
    return any(pins.pinned(d, f"attr:{a.name}") in (NEGATIVE, NON_NEGATIVE) for a in d.spec.attributes
               if is_dependent(a) and any(isinstance(b, str) and f"rank({port.name})" in b for b in a.range))


def input_array(draw, d: Draft, i: int, *, rank: int | None = None, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """An array for concrete input i with its drawn element type: within the port's value range
    where it declares one (`values: {typical: ...}`), else with edge values mixed in. A port of a
    sequence, optional or map type gets such a value (generator/container_values.py)."""
    name = d.dtypes[min(i, len(d.dtypes) - 1)]
    if containers.is_container_type(name):
        return draw(container_values.strategy(name, d.profile, rank=rank))
    if shape is None:
        shape = input_shape(draw, d, i, rank=rank)
    name = d.dtypes[min(i, len(d.dtypes) - 1)]
    bounds = value_range(d, port_of(d, i))
    if bounds is not None:
        x = values.ranged(draw, name, shape, *bounds)
        if x is not None:
            return x
    return draw(values.arrays(name, shape))


def value_range(d: Draft, p: Port) -> tuple[float, float, float] | None:
    """(lo, hi, step) of the port's value range, its expression bounds evaluated on the draft as
    drawn so far; None without a range, or where a bound cannot be evaluated yet."""
    r = p.values
    if r is None:
        return None
    if not r.reads_others:
        return float(r.lo), float(r.hi), r.step
    env = specs.environment(d.spec, d.inputs, d.attributes)
    try:
        lo, hi = (float(expr.evaluate(b, env)) if isinstance(b, str) else float(b) for b in (r.lo, r.hi))
    except (expr.ExprError, TypeError, ValueError, IndexError):
        return None  # e.g. depth[0] of an empty depth the solver has yet to give one element
    return lo, hi, r.step


def inputs(draw, d: Draft) -> None:
    """Each present input independently: a rank within the port's bounds, a small shape, values
    (holding the row's value class where the row pins one, see pins.input_values). An input
    whose value range reads other inputs (OneHot's indices, around [-depth, depth)) is drawn after
    the others."""
    d.inputs = [None] * len(d.present)
    later = [i for i in range(len(d.present)) if (r := port_of(d, i).values) is not None and r.reads_others]
    for i in [i for i in range(len(d.present)) if i not in later] + later:
        if d.present[i]:
            d.inputs[i] = input_array(draw, d, i)
    for i in range(len(d.inputs)):
        pins.input_values(draw, d, i)


def outputs(draw, d: Draft) -> None:
    """Required outputs always; each optional output asked or not (every subset is reachable)."""
    d.outputs_requested = pins.outputs(draw, d)
