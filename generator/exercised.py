"""What a case exercises: the factor value it really holds for each factor of its spec version.

    >>> from opconform.generator.exercised import exercised, mismatches
    >>> got = exercised(spec, fs, case)      # {"type:T": "float32", "attr:axis": <negative>, ...}
    >>> got["values:input"]                  # frozenset({"nan", "zero", ...}): every class it holds
    >>> mismatches(spec, row, got)           # [] when the case holds every value the row pins

Read from the case itself (element types of its arrays, the attributes as set, which inputs are
given, which outputs are asked), never from the row it was drawn for: a hook that overrode a pin
shows up here. A `values:<input>` factor is the set of value classes the input holds (one array
holds several): a row's class is held when it is in the set. A value no factor value stands for (an int attribute 3 when the factor lists
-1, 0, 1) is None, and so is the element type of a type variable whose every input is absent.
Works on a `Case` and on a `Draft` (both have attributes, inputs and outputs_requested).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from opconform import containers, dtypes
from opconform.generator import value_classes
from opconform.generator.factors import (
    ABOVE_MIN, BELOW_MAX, GIVEN, INTERIOR, NEGATIVE, NON_DEFAULT, NON_NEGATIVE, OMITTED, Class, Factor,
)
from opconform.model import Attribute, SpecVersion

_MISSING = object()


def exercised(spec: SpecVersion, fs: Sequence[Factor], case: Any) -> dict[str, Any]:
    """Factor name -> the value the case holds (None: no value of the factor describes it)."""
    out: dict[str, Any] = {}
    for f in fs:
        if f.kind == "type":
            out[f.name] = _element_type(spec, f.target, case.inputs)
        elif f.kind == "attribute":
            out[f.name] = attribute_class(spec.attribute(f.target), f.values, case.attributes.get(f.target, _MISSING))
        elif f.kind == "presence":
            i = [p.name for p in spec.inputs].index(f.target)
            out[f.name] = i < len(case.inputs) and case.inputs[i] is not None
        elif f.kind == "outputs":
            asked = tuple(bool(b) for b in case.outputs_requested)
            out[f.name] = asked if asked in f.values else None
        elif f.kind == "values":
            i = [p.name for p in spec.inputs].index(f.target)
            x = case.inputs[i] if i < len(case.inputs) else None
            out[f.name] = value_classes.classes_held(x) & frozenset(f.values)
    return out


def _element_type(spec: SpecVersion, key: str, inputs: Sequence) -> str | None:
    """The element type of the first given input of the type variable (or port) `key`."""
    for i, x in enumerate(inputs):
        port = spec.inputs[min(i, len(spec.inputs) - 1)]
        if x is not None and (port.type_var or port.name) == key:
            try:
                return containers.type_of(x)  # a sequence's, optional's or map's: its type string
            except dtypes.UnknownElementType:
                return None
    return None


def _normal(a: Attribute, v: Any) -> Any:
    """A scalar attribute value in the Python type its factor values have (NumPy scalars, 1 for True...)."""
    if isinstance(v, (list, tuple, np.ndarray)) and not (isinstance(v, np.ndarray) and v.ndim == 0):
        return v
    v = v.item() if isinstance(v, np.generic) or isinstance(v, np.ndarray) else v
    if a.type == "bool" and isinstance(v, (bool, int)):
        return bool(v)
    if a.type == "int" and isinstance(v, (bool, int)):
        return int(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return v


def same(a: Any, b: Any) -> bool:
    """Factor value equality: classes by identity, True and 1 apart (they compare equal in Python);
    a set of value classes (a `values:` factor) holds each of its members."""
    if isinstance(a, frozenset) != isinstance(b, frozenset):
        return (b in a) if isinstance(a, frozenset) else (a in b)
    if isinstance(a, Class) or isinstance(b, Class):
        return a is b
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def attribute_class(a: Attribute, values: Sequence[Any], raw: Any) -> Any:
    """The factor value an attribute setting falls under: OMITTED when not set, a listed concrete
    value when it equals one, else the first listed class that holds it, else None."""
    if raw is _MISSING:
        return OMITTED if OMITTED in values else None
    v = _normal(a, raw)
    scalar = not isinstance(v, (list, tuple, np.ndarray, dict))
    if scalar:
        for w in values:
            if not isinstance(w, Class) and same(v, w):
                return w
    elif isinstance(v, (list, tuple)):  # a list attribute's allowed lists (RNN's activations), held as tuples
        for w in values:
            if isinstance(w, tuple) and tuple(v) == w:
                return w
    for w in values:
        if isinstance(w, Class) and w is not OMITTED and _in_class(a, w, v, scalar):
            return w
    return None


def _in_class(a: Attribute, cls: Class, v: Any, scalar: bool) -> bool:
    if cls is GIVEN:
        return True
    if not scalar or isinstance(v, (str, bool)) or not isinstance(v, (int, float)):
        return False
    lo, hi = a.range if a.range is not None and not any(isinstance(b, str) for b in a.range) else (None, None)
    if cls is NEGATIVE:
        return v < 0
    if cls is NON_NEGATIVE:
        return v >= 0
    if cls is ABOVE_MIN:
        return lo is not None and v > lo
    if cls is BELOW_MAX:
        return hi is not None and v < hi
    if cls is INTERIOR:
        return lo is not None and hi is not None and lo < v < hi
    if cls is NON_DEFAULT:
        return a.default is None or v != a.default
    return False


def unobservable(spec: SpecVersion, factor: str, got: Mapping[str, Any]) -> bool:
    """True for a type factor whose every input is absent in the case: its element type is not
    held by any array, so no value of it can be exercised (nor pinned)."""
    if not factor.startswith("type:"):
        return False
    key = factor[len("type:"):]
    ports = [p for p in spec.inputs if (p.type_var or p.name) == key]
    return bool(ports) and all(p.optional and got.get(f"input:{p.name}") is False for p in ports)


def mismatches(spec: SpecVersion, row: Mapping[str, Any], got: Mapping[str, Any]) -> list[str]:
    """One line per pinned factor the case does not hold ("attr:axis: asked <negative>, got 2")."""
    out = []
    for name, want in row.items():
        have = got.get(name, _MISSING)
        if have is _MISSING or unobservable(spec, name, got):
            continue
        if not same(want, have):
            out.append(f"{name}: asked {want!r}, got {have!r}")
    return out
