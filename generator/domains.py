"""Values of a numeric attribute with a `domain` (specs: `domain: {min, max, exclusive_min,
exclusive_max, typical, on_violation}`): inside it for valid cases, just outside for must-refuse.

Valid values weight what models use and where implementations go wrong: the default, the
domain's boundary (its bound, or the first float32 past an exclusive one), both ends of the
typical range, and draws across the typical range (log-uniform when it spans decades, so
epsilon is 1e-12 .. 1e-1 rather than -2.48 or 3.81). Without a typical range, values are drawn
inside the domain near its bounds (within a few units).

    >>> inside(spec.attribute("epsilon"))     # SearchStrategy[float]: 1e-05, 1.4e-45, 3.2e-07, ...
    >>> outside(spec.attribute("epsilon"))    # just past the domain: 0.0, -1.4e-45, -1.0
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from hypothesis import strategies as st

from opconform.generator import values
from opconform.model import Attribute, Domain

_SPAN = 4.0  # how far from a bound values are drawn when the domain gives no typical range
_DECADES = 2.0  # a typical range spanning more than this many decades is drawn log-uniformly


def inside(a: Attribute) -> st.SearchStrategy[Any]:
    """Values inside the attribute's domain, default and boundary values weighted."""
    return _inside(a)


@lru_cache(maxsize=None)
def _inside(a: Attribute) -> st.SearchStrategy[Any]:
    dom = a.domain
    assert dom is not None, f"attribute {a.name} has no domain"
    # cast: the default and the typical range are written in decimal; the model stores float32
    default = None if a.default is None else _cast(a, a.default)
    fixed = [v for v in [default, *_boundary(a, dom), *(_cast(a, t) for t in dom.typical or ())]
             if v is not None and dom.contains(v)]
    spread = _typical(a, dom)
    # about half the draws are the fixed values (default first: what shrinking reaches), half spread
    options = [st.sampled_from(list(dict.fromkeys(fixed)))] if fixed else []
    options += [spread] * max(len(options), 1)
    return _choose(tuple(options))


@st.composite
def _choose(draw, options: tuple) -> Any:
    return draw(values.pick(draw, options))


def _boundary(a: Attribute, dom: Domain) -> list[Any]:
    """The values at the domain's edge: an inclusive bound, or the first value past an exclusive one."""
    out = []
    for bound, exclusive, up in ((dom.min, dom.exclusive_min, True), (dom.max, dom.exclusive_max, False)):
        if bound is None:
            continue
        out.append(_step(a, bound, up) if exclusive else _cast(a, bound))
    return out


def _step(a: Attribute, v: float, up: bool) -> Any:
    """The next value of the attribute's type from v (float attributes are float32 in ONNX)."""
    if a.type == "int":
        return int(math.floor(v)) + 1 if up else int(math.ceil(v)) - 1
    return float(np.nextafter(np.float32(v), np.float32(np.inf if up else -np.inf)))


def _cast(a: Attribute, v: float) -> Any:
    return int(v) if a.type == "int" else float(np.float32(v))


def _typical(a: Attribute, dom: Domain) -> st.SearchStrategy[Any]:
    lo, hi = dom.typical if dom.typical is not None else _near_bounds(dom)
    if a.type == "int":
        return st.integers(int(math.ceil(lo)), int(math.floor(hi))).filter(dom.contains)
    if lo > 0 and hi / lo > 10 ** _DECADES:  # decades apart: every decade as likely
        return st.floats(math.log10(lo), math.log10(hi)).map(lambda e: float(np.float32(10.0 ** e))).filter(dom.contains)
    # drawn in float64 and rounded: float32 draws need bounds float32 holds exactly (0.1 is not)
    return st.floats(lo, hi, allow_nan=False).map(lambda v: float(np.float32(v))).filter(dom.contains)


def _near_bounds(dom: Domain) -> tuple[float, float]:
    lo = dom.min if dom.min is not None else (dom.max - 2 * _SPAN if dom.max is not None else -_SPAN)
    hi = dom.max if dom.max is not None else lo + 2 * _SPAN
    return float(lo), float(hi)


def outside(a: Attribute) -> st.SearchStrategy[Any]:
    """Values just outside the domain: an exclusive bound itself, the first value past an
    inclusive one, and one a unit further (nothing when the domain is unbounded)."""
    dom = a.domain
    options: list[Any] = []
    for bound, exclusive, up in ((dom.min, dom.exclusive_min, False), (dom.max, dom.exclusive_max, True)):
        if bound is None:
            continue
        edge = _cast(a, bound) if exclusive else _step(a, bound, up)
        options += [edge, _cast(a, bound + (1 if up else -1))]
    options = [v for v in dict.fromkeys(options) if not dom.contains(v)]
    return st.sampled_from(options) if options else st.nothing()


def breaker(attr: str):
    """A breaker (docs/generator-hooks.md) for the implicit relation `<attr>_domain`."""
    def break_domain(draw, d) -> None:
        d.attributes[attr] = draw(outside(d.spec.attribute(attr)))
    return break_domain


def breakers(spec) -> dict:
    """Relation id -> breaker, for every attribute whose domain the text makes an error to leave."""
    return {f"{a.name}_domain": breaker(a.name) for a in spec.attributes
            if a.domain is not None and a.domain.on_violation == "error"
            and (a.domain.min is not None or a.domain.max is not None)}
