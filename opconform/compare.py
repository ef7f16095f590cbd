"""Does an actual output array match the expected one? The one answer that the runner's verdicts
(suites/verdicts.py), the report's highlighting (reports/failure.py), shrinking (through the
verdicts), the official ONNX node cases (oracle/official.py) and the spec examples
(oracle/examples.py) all use, so that a case judged a mismatch always shows the elements that
make it one.

    differing(actual, expected, rules) -> bool mask, True where an element differs (None: shapes differ)
    check(actual, expected, rules)     -> None, or a Difference: element type, then shape, then values
                                          ("at [1]: got 5.0, expected nan (1 of 2 elements differ)")

The rules, decided once. The runner's verdicts were the reference; where another site disagreed,
the runner's rule won:

- element types: the opconform names must be the same (float64 for float32 is a wrong type, not
  a value difference). `differing` compares values whatever the types, for a report that shows a
  wrong-typed output beside the expected one.
- integers and bool: exact, and never widened through float64 (which blurs int64 above 2**53; the
  report used to).
- strings: the same text, bytes read as UTF-8 (surrogateescape, as tensors.string_elements records
  them: b"a" and "a" are the same text, which the runner used to miss). A port whose texts stand
  for numbers (`compare: numeric_text`) passes its own rule as `Rules.texts`.
- floats, ml_dtypes ones included (bfloat16, float8, float4...: read exactly as float64):
  - NaN matches NaN whatever its payload and sign: ONNX pins no payload, backends canonicalise;
  - an infinity matches only the same infinity, under a tolerance too;
  - -0.0 against +0.0: as the spec's `signed_zero` says, "equal" by default, "distinct" where the
    sign is the point (Abs, Neg, Round, Identity...), under a tolerance too (a wrong sign is no
    rounding error). The report and the official-case check used to ignore the sign, so onnx::Abs
    returning -0.0 for 0.0 was a mismatch in which no element was marked;
  - tolerance: |actual - expected| <= atol + rtol * |expected|, for a finite expected value only,
    rtol and atol per element type (Tolerance.for_type). Relative to the expected value (the
    report used numpy.isclose(expected, actual), relative to the actual one).
- complex: the real and the imaginary part each under the float rules, with the complex type's
  tolerance.

- sequences, optionals and maps (opconform.containers): the type first (a wrong container type is
  an element-type difference), then the structure (a sequence's length, an optional empty or not,
  a map's keys: a shape difference), then each tensor or map value under the rules above.

The core: imports only opconform.model, opconform.dtypes and opconform.containers, NumPy and
(through dtypes) ml_dtypes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from opconform import containers, dtypes
from opconform.model import SpecVersion, Tolerance

# element-wise equality of two string arrays of one shape (actual, expected) -> bool array
TextRule = Callable[[np.ndarray, np.ndarray], np.ndarray]

SIGNED_ZERO = ("equal", "distinct")
SHORT_CHARS = 40  # a value in a message is cut to this many characters

_NUMPY_KINDS = {"f": "float", "c": "complex", "i": "int", "u": "uint", "b": "bool", "O": "string", "U": "string",
                "S": "string"}


@dataclass(frozen=True)
class Rules:
    """What "equal" means for one output: the spec's tolerance and signed-zero policy, and for
    strings, optionally, a rule of the port's own (numeric_text)."""

    tolerance: Tolerance = field(default_factory=Tolerance)
    signed_zero: str = "equal"  # "equal": -0.0 matches 0.0; "distinct": the sign must match
    texts: TextRule | None = None  # None: exact text

    def __post_init__(self) -> None:
        if self.signed_zero not in SIGNED_ZERO:
            raise ValueError(f"signed_zero {self.signed_zero!r}; expected one of {', '.join(SIGNED_ZERO)}")

    @classmethod
    def of(cls, spec: SpecVersion, texts: TextRule | None = None) -> Rules:
        """The rules a spec version states (its tolerance and signed_zero)."""
        return cls(spec.tolerance, spec.signed_zero, texts)


DEFAULT = Rules()  # exact, -0.0 matches 0.0: where no spec says otherwise


@dataclass(frozen=True, eq=False)
class Difference:
    """Why an actual array does not match the expected one."""

    kind: str  # "element type", "shape" or "values"
    message: str  # "got element type float64, expected float32", "got shape [2], expected [3]",
    #               "at [1]: got 5.0, expected nan (1 of 2 elements differ)"
    mask: np.ndarray | None = None  # for "values": True where an element differs

    def about(self, subject: str) -> str:
        """The message about a named output: 'output y at [1]: got ...', 'output y: got shape ...'."""
        return f"{subject} {self.message}" if self.kind == "values" else f"{subject}: {self.message}"


@lru_cache(maxsize=None)
def type_name(dtype: np.dtype) -> str:
    """The element type's name (dtypes.name_of), or NumPy's for a dtype opconform has no name for.
    Cached: name_of searches the type table, and every compared output asks."""
    try:
        return dtypes.name_of(dtype)
    except dtypes.UnknownElementType:
        return str(dtype)


def kind(dtype: np.dtype) -> str:
    """'float', 'complex', 'int', 'uint', 'bool' or 'string'; from NumPy's kind for a dtype
    opconform has no name for (a byte-swapped float32 compares as a float)."""
    name = type_name(dtype)
    if name in dtypes.BY_NAME:
        return dtypes.BY_NAME[name].kind
    kind = _NUMPY_KINDS.get(dtype.kind)
    if kind is None:
        raise dtypes.UnknownElementType(f"cannot compare elements of NumPy dtype {dtype}")
    return kind


def short(v: Any) -> str:
    """repr of a value (a NumPy scalar or array as the Python value), cut to SHORT_CHARS."""
    if isinstance(v, (np.ndarray, np.generic)):
        v = v.tolist() if isinstance(v, np.ndarray) else v.item()
    text = repr(v)
    return text if len(text) <= SHORT_CHARS else text[: SHORT_CHARS - 3] + "..."


def differing(actual: Any, expected: Any, rules: Rules = DEFAULT) -> np.ndarray | None:
    """Boolean mask, True where an element of `actual` differs from `expected` under `rules`; None
    when the shapes differ (no element pairs with another). Values are compared whatever the
    element types: a string against a number always differs. Containers: one entry per part (a
    sequence's items, a map's entries, an optional's value), None when their structure differs."""
    if containers.is_container(actual) or containers.is_container(expected):
        return _parts_differ(actual, expected, rules)
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        return None
    ka, ke = kind(a.dtype), kind(e.dtype)
    if "string" in (ka, ke):
        if ka != ke:
            return np.ones(e.shape, bool)
        return ~_same_texts(a, e, rules)
    if ka in ("int", "uint", "bool") and ke in ("int", "uint", "bool"):
        return np.asarray(a != e, bool)
    tol = rules.tolerance.for_type(type_name(e.dtype))
    # widening a signalling NaN raises "invalid"; it stays NaN, which is all that counts here
    with np.errstate(invalid="ignore"):
        if "complex" in (ka, ke):
            a, e = a.astype(np.complex128), e.astype(np.complex128)
            return _floats_differ(a.real, e.real, tol, rules.signed_zero) | _floats_differ(a.imag, e.imag, tol, rules.signed_zero)
        return _floats_differ(a.astype(np.float64), e.astype(np.float64), tol, rules.signed_zero)


def _floats_differ(a: np.ndarray, e: np.ndarray, tol: tuple[float, float], signed_zero: str) -> np.ndarray:
    rtol, atol = tol
    # inf - inf is "invalid" and opposite values near the float64 limit overflow: both answer right
    with np.errstate(invalid="ignore", over="ignore"):
        same = (a == e) | (np.isnan(a) & np.isnan(e))
        if rtol or atol:
            # within the tolerance of a finite value only: |x - inf| <= rtol * inf would let any
            # finite x match an infinity
            same |= np.isfinite(e) & (np.abs(a - e) <= atol + rtol * np.abs(e))
    if signed_zero == "distinct":
        same &= ~((a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e)))
    return ~same


def _same_texts(a: np.ndarray, e: np.ndarray, rules: Rules) -> np.ndarray:
    if rules.texts is not None:
        return np.asarray(rules.texts(a, e), bool).reshape(e.shape)
    return np.asarray(np.frompyfunc(_same_text, 2, 1)(a, e), bool).reshape(e.shape)


def _same_text(x: Any, y: Any) -> bool:
    return _text(x) == _text(y)


def _text(x: Any) -> str:
    return x.decode("utf-8", "surrogateescape") if isinstance(x, bytes) else str(x)


def check(actual: Any, expected: Any, rules: Rules = DEFAULT) -> Difference | None:
    """None when `actual` matches `expected` under `rules`; else the first thing that differs: the
    element type, the shape, or the values (the first differing element, and how many differ)."""
    if containers.is_container(actual) or containers.is_container(expected):
        return _check_container(actual, expected, rules)
    a, e = np.asarray(actual), np.asarray(expected)
    got_type, want_type = type_name(a.dtype), type_name(e.dtype)
    if got_type != want_type:
        return Difference("element type", f"got element type {got_type}, expected {want_type}")
    if a.shape != e.shape:
        return Difference("shape", f"got shape {list(a.shape)}, expected {list(e.shape)}")
    mask = differing(a, e, rules)
    bad = np.flatnonzero(mask)
    if not bad.size:
        return None
    at = tuple(int(i) for i in np.unravel_index(bad[0], mask.shape))
    return Difference("values", f"at {list(at)}: got {short(a[at])}, expected {short(e[at])} "
                                f"({bad.size} of {mask.size} elements differ)", mask)


def _structure(actual: Any, expected: Any) -> Difference | None:
    """The type, then the structure, of two values of which one at least is a container."""
    got_type, want_type = containers.type_of(actual), containers.type_of(expected)
    if got_type != want_type:
        return Difference("element type", f"got type {got_type}, expected {want_type}")
    if isinstance(expected, containers.SequenceValue) and len(actual.items) != len(expected.items):
        return Difference("shape", f"got a sequence of {len(actual.items)}, expected {len(expected.items)}")
    if isinstance(expected, containers.OptionalValue) and actual.has_element != expected.has_element:
        return Difference("shape", "got an empty optional, expected one holding a value" if expected.has_element
                          else "got an optional holding a value, expected an empty one")
    if isinstance(expected, containers.MapValue):
        got_keys, want_keys = _key_texts(actual.keys), _key_texts(expected.keys)
        if sorted(got_keys) != sorted(want_keys):
            return Difference("shape", f"got map keys {short(sorted(got_keys))}, expected {short(sorted(want_keys))}")
    return None


def _key_texts(keys: np.ndarray) -> list:
    return [_text(k) if not isinstance(k, (int, np.integer)) else int(k) for k in keys.tolist()]


def _parts(actual: Any, expected: Any) -> list[tuple[str, Any, Any]]:
    """(where, actual part, expected part) of two containers of one type and structure; a map's
    entries paired by key (a map has no order)."""
    if isinstance(expected, containers.SequenceValue):
        return [(f"[{k}]", a, e) for k, (a, e) in enumerate(zip(actual.items, expected.items))]
    if isinstance(expected, containers.OptionalValue):
        return [] if expected.value is None else [("", actual.value, expected.value)]
    at = {k: j for j, k in enumerate(_key_texts(actual.keys))}
    return [(f"{{{short(k)}}}", actual.values[at[k]], expected.values[j])
            for j, k in enumerate(_key_texts(expected.keys))]


def _check_container(actual: Any, expected: Any, rules: Rules) -> Difference | None:
    found = _structure(actual, expected)
    if found is not None:
        return found
    parts = _parts(actual, expected)
    bad = [(where, check(a, e, rules)) for where, a, e in parts]
    bad = [(where, d) for where, d in bad if d is not None]
    if not bad:
        return None
    where, first = bad[0]
    mask = np.array([check(a, e, rules) is not None for _, a, e in parts], bool)
    kind = "values" if first.kind == "values" else first.kind
    text = f"item {where}" if isinstance(expected, containers.SequenceValue) else (f"key {where}" if where else "value")
    more = f" ({len(bad)} of {len(parts)} parts differ)" if len(parts) > 1 else ""
    return Difference(kind, f"{text} {first.message}{more}" if first.kind == "values" else f"{text}: {first.message}{more}", mask)


def _parts_differ(actual: Any, expected: Any, rules: Rules) -> np.ndarray | None:
    if _structure(actual, expected) is not None:
        return None
    return np.array([check(a, e, rules) is not None for _, a, e in _parts(actual, expected)], bool)
