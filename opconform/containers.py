"""The values that are not tensors: sequences, optionals and maps (ONNX's SequenceProto,
OptionalProto and MapProto), as every stage holds them.

A case input or output is a NumPy array (a tensor) or one of the three dataclasses below. Each
carries its type as a canonical type string, so an empty sequence or an empty optional still says
what it would hold:

    seq(tensor(float32))               a sequence of float32 tensors
    optional(tensor(int64))            a tensor or nothing
    optional(seq(tensor(float32)))     a sequence or nothing
    map(int64,tensor(string))          int64 keys -> string scalars (ai.onnx.ml's maps)
    seq(map(string,tensor(float32)))   ZipMap's output

A tensor's type is its element type name alone ("float32"), as everywhere else in opconform.
Spec files may also write ONNX's own spelling ("seq(tensor(float))", "map(int64, float)");
canonical() turns either into the form above.

The core: imports only opconform.dtypes, opconform.tensors and NumPy.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Union

import numpy as np

from opconform import dtypes, tensors

KINDS = ("seq", "optional", "map")
MAP_KEYS = ("int64", "string")  # MapProto's keys as ai.onnx.ml uses them


# ------------------------------------------------------------------ types
@dataclass(frozen=True)
class ValueType:
    """A parsed type string: kind "tensor" (elem), "seq"/"optional" (inner), "map" (key, inner)."""

    kind: str
    elem: str | None = None  # tensor: the element type name
    inner: ValueType | None = None  # seq, optional, map: what it holds (a map: its value type)
    key: str | None = None  # map: the key element type

    def __str__(self) -> str:
        if self.kind == "tensor":
            return f"tensor({self.elem})"
        if self.kind == "map":
            return f"map({self.key},{self.inner})"
        return f"{self.kind}({self.inner})"


class TypeStringError(ValueError):
    """A type string that names no type opconform knows."""


def _element_name(text: str, whole: str) -> str:
    if text in dtypes.BY_NAME:
        return text
    onnx_name = dtypes.BY_ONNX_STR.get(f"tensor({text})")
    if onnx_name is None:
        raise TypeStringError(f"type {whole!r}: unknown element type {text!r}")
    return onnx_name.name


def _split_top(text: str) -> list[str]:
    """The comma-separated parts of `text` outside parentheses."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


@lru_cache(maxsize=4096)  # every drawn draft asks for its ports' types: parse each string once
def parse_type(text: str, whole: str | None = None) -> ValueType:
    """The type a type string names; TypeStringError naming the string otherwise."""
    whole = text if whole is None else whole
    text = text.strip()
    head, paren, rest = text.partition("(")
    if not paren:
        return ValueType("tensor", elem=_element_name(text, whole))
    if not rest.endswith(")"):
        raise TypeStringError(f"type {whole!r}: unbalanced parentheses")
    body = rest[:-1]
    parts = _split_top(body)
    if head == "tensor" and len(parts) == 1:
        return ValueType("tensor", elem=_element_name(parts[0], whole))
    if head in ("seq", "sequence", "optional") and len(parts) == 1:
        return ValueType("seq" if head != "optional" else "optional", inner=_inner(parts[0], whole))
    if head == "map" and len(parts) == 2:
        key = _element_name(parts[0], whole)
        if key not in MAP_KEYS:
            raise TypeStringError(f"type {whole!r}: map keys are {' or '.join(MAP_KEYS)}, not {key}")
        return ValueType("map", key=key, inner=_inner(parts[1], whole))
    raise TypeStringError(f"type {whole!r}: expected tensor(E), seq(T), optional(T) or map(K, T)")


def _inner(text: str, whole: str) -> ValueType:
    return parse_type(text, whole)


@lru_cache(maxsize=4096)
def canonical(text: str) -> str:
    """The canonical spelling of a type string: an element name alone for a tensor, else the
    container form with opconform's element names and no spaces."""
    t = parse_type(text)
    return t.elem if t.kind == "tensor" else str(t)


def is_container_type(text: str) -> bool:
    """Whether a (canonical) type string names a sequence, optional or map rather than a tensor."""
    return text.startswith(("seq(", "sequence(", "optional(", "map("))


@lru_cache(maxsize=4096)
def element_type(text: str) -> str:
    """The element type of the innermost tensor a type holds (a map: its values')."""
    t = parse_type(text)
    while t.kind != "tensor":
        t = t.inner
    return t.elem


@lru_cache(maxsize=4096)
def drawable(text: str) -> bool:
    """Whether values of this type can be held here (every tensor element type has a NumPy dtype)."""
    t = parse_type(text)
    while True:
        if t.kind == "tensor":
            return t.elem in dtypes.BY_NAME and dtypes.get(t.elem).numpy is not None
        t = t.inner


# ------------------------------------------------------------------ values
@dataclass(frozen=True, eq=False)
class SequenceValue:
    """An ordered list of values of one type (the tensors may differ in shape)."""

    # no __len__ or __getitem__: NumPy would take the value for a nested list and unpack it
    type: str  # canonical, "seq(...)"
    items: tuple[Any, ...] = ()


@dataclass(frozen=True, eq=False)
class OptionalValue:
    """A value of its inner type, or none (an empty optional)."""

    type: str  # canonical, "optional(...)"
    value: Any = None

    @property
    def has_element(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, eq=False)
class MapValue:
    """Keys (int64 or string, distinct) to scalar values, in the order given: one-dimensional arrays."""

    type: str  # canonical, "map(...)"
    keys: np.ndarray
    values: np.ndarray

    def as_dict(self) -> dict:
        return {_key(k): v for k, v in zip(self.keys.tolist(), self.values.reshape(-1))}


Container = Union[SequenceValue, OptionalValue, MapValue]
CONTAINERS = (SequenceValue, OptionalValue, MapValue)


def _key(k: Any) -> Any:
    return k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k


def is_container(x: Any) -> bool:
    return isinstance(x, CONTAINERS)


def type_of(x: Any) -> str:
    """The canonical type string of a value: a tensor's element type name, a container's type."""
    if isinstance(x, CONTAINERS):
        return x.type
    return dtypes.name_of(np.asarray(x).dtype)


def as_value(x: Any) -> Any:
    """A container unchanged, anything else as a NumPy array (what comparisons take)."""
    return x if isinstance(x, CONTAINERS) else np.asarray(x)


def sequence(elem_type: str, items: Any = ()) -> SequenceValue:
    """A sequence of tensors of element type `elem_type` (or of `elem_type` values when it is a
    container type string)."""
    inner = canonical(elem_type)
    inner = inner if is_container_type(inner) else f"tensor({inner})"
    return SequenceValue(f"seq({inner})", tuple(items))


def optional(inner_type: str, value: Any = None) -> OptionalValue:
    inner = canonical(inner_type)
    inner = inner if is_container_type(inner) else f"tensor({inner})"
    return OptionalValue(f"optional({inner})", value)


def map_of(key_type: str, value_type: str, keys: Any, values: Any) -> MapValue:
    k = np.array(list(keys), dtype=object if key_type == "string" else np.int64).reshape(-1)
    v = np.asarray(values, dtype=dtypes.numpy_dtype(canonical(value_type))).reshape(-1)
    if k.size != v.size:
        raise ValueError(f"map: {k.size} keys but {v.size} values")
    return MapValue(f"map({key_type},tensor({canonical(value_type)}))", k, v)


# ---------------------------------------------------------- JSON and digests
def encode(x: Any) -> dict:
    """A JSON-safe dict, byte-exact (tensors.encode for a tensor; the container's type and parts)."""
    if isinstance(x, SequenceValue):
        return {"container": "seq", "type": x.type, "items": [encode(i) for i in x.items]}
    if isinstance(x, OptionalValue):
        return {"container": "optional", "type": x.type, "value": None if x.value is None else encode(x.value)}
    if isinstance(x, MapValue):
        return {"container": "map", "type": x.type, "keys": tensors.encode(x.keys), "values": tensors.encode(x.values)}
    return tensors.encode(x)


def decode(d: Mapping[str, Any]) -> Any:
    kind = d.get("container") if isinstance(d, Mapping) else None
    if kind is None:
        return tensors.decode(d)
    try:
        if kind == "seq":
            return SequenceValue(d["type"], tuple(decode(i) for i in d["items"]))
        if kind == "optional":
            return OptionalValue(d["type"], None if d["value"] is None else decode(d["value"]))
        if kind == "map":
            return MapValue(d["type"], tensors.decode(d["keys"]), tensors.decode(d["values"]))
    except (KeyError, TypeError) as e:
        raise ValueError(f"corrupt encoded {kind}: missing or malformed field ({e})") from None
    raise ValueError(f"corrupt encoded value: unknown container {kind!r}")


def is_encoded(d: Any) -> bool:
    """Whether a dict is an encoded value (a tensor's or a container's)."""
    return isinstance(d, Mapping) and ("container" in d or ("dtype" in d and "shape" in d and ("b64" in d or "strings" in d)))


def digest(x: Any) -> bytes:
    """A content hash that sees the type and every bit of every part."""
    if not isinstance(x, CONTAINERS):
        return tensors.digest(x)
    h = hashlib.sha256(x.type.encode())
    parts = (x.items if isinstance(x, SequenceValue) else (x.keys, x.values) if isinstance(x, MapValue)
             else () if x.value is None else (x.value,))
    h.update(str(len(parts)).encode())
    for p in parts:
        h.update(b"|" + digest(p))
    return h.digest()


# ----------------------------------------------- runtimes' Python forms
def to_python(x: Any) -> Any:
    """The form ONNX runtimes' Python APIs take: a list for a sequence, a dict for a map, the
    value or None for an optional, an array for a tensor."""
    if isinstance(x, SequenceValue):
        return [to_python(i) for i in x.items]
    if isinstance(x, OptionalValue):
        return None if x.value is None else to_python(x.value)
    if isinstance(x, MapValue):
        return x.as_dict()
    return x


def from_python(obj: Any, type_text: str) -> Any:
    """A value of the given type from a runtime's Python form (to_python's inverse); a tensor
    type gives np.asarray(obj). A form that does not fit the type is a TypeError naming both."""
    t = parse_type(type_text)
    return _from_python(obj, t, type_text)


def _from_python(obj: Any, t: ValueType, whole: str) -> Any:
    if isinstance(obj, CONTAINERS):  # read already (a .pb file's proto): its own type stands
        return obj
    if t.kind == "tensor":
        if obj is None or isinstance(obj, (list, dict, tuple)):
            raise TypeError(f"expected a tensor of {whole}, got a {type(obj).__name__}")
        return np.asarray(obj)
    if t.kind == "optional":
        return OptionalValue(str(t), None if obj is None else _from_python(obj, t.inner, whole))
    if t.kind == "seq":
        if not isinstance(obj, (list, tuple)):
            raise TypeError(f"expected a list for {whole}, got a {type(obj).__name__}")
        return SequenceValue(str(t), tuple(_from_python(i, t.inner, whole) for i in obj))
    if not isinstance(obj, Mapping):
        raise TypeError(f"expected a dict for {whole}, got a {type(obj).__name__}")
    value_type = t.inner.elem if t.inner.kind == "tensor" else None
    if value_type is None:
        raise TypeError(f"{whole}: maps of non-tensor values are not supported")
    k = np.array(list(obj.keys()), dtype=object if t.key == "string" else np.int64).reshape(-1)
    # a runtime's dict holds Python floats and ints, which carry no element type: the declared one
    v = np.array(list(obj.values()), dtype=dtypes.numpy_dtype(value_type)).reshape(-1)
    return MapValue(str(t), k, v)


def length(x: Any) -> int:
    """A sequence's item count, a map's entry count, 1 or 0 for an optional, a tensor's size."""
    if isinstance(x, SequenceValue):
        return len(x.items)
    if isinstance(x, MapValue):
        return int(x.keys.size)
    if isinstance(x, OptionalValue):
        return int(x.value is not None)
    return int(np.size(x))


def guess_from_python(obj: Any) -> Any:
    """A value from a runtime's Python form when no type says what it is (a runtime answering a
    list where the model declares a tensor): a list as a sequence, a dict as a map, typed by
    their first item (an empty one as float32's); anything else as an array."""
    if isinstance(obj, (list, tuple)):
        items = [guess_from_python(i) for i in obj]
        inner = type_of(items[0]) if items else "float32"
        return SequenceValue(f"seq({inner if is_container_type(inner) else f'tensor({inner})'})", tuple(items))
    if isinstance(obj, Mapping):
        keys = list(obj)
        key = "string" if keys and isinstance(keys[0], (str, bytes)) else "int64"
        vals = np.asarray(list(obj.values()))
        return map_of(key, type_of(vals) if vals.size else "float32", keys, vals)
    return np.asarray(obj)


def describe(x: Any) -> str:
    """A short text of a value's kind and size: 'seq(tensor(float32)) of 3', 'optional(...) empty',
    'float32 [2, 3]' (for reports and messages)."""
    if isinstance(x, SequenceValue):
        return f"{x.type} of {len(x.items)}"
    if isinstance(x, OptionalValue):
        return f"{x.type} {'holding a value' if x.value is not None else 'empty'}"
    if isinstance(x, MapValue):
        return f"{x.type} of {x.keys.size} entries"
    a = np.asarray(x)
    return f"{type_of(a)} {list(a.shape)}"
