"""Values and their types as ONNX protos: a type string (opconform.containers) as a TypeProto and
back, and a value (tensor, sequence, optional, map) as a TensorProto, SequenceProto, OptionalProto
or MapProto and back. The model builder (graph inputs and outputs), the test-data writer
(input_K.pb / output_K.pb), `opconform judge` and the official node cases all use these, so a
value is written and read one way.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from opconform import containers, dtypes, tensors
from opconform.containers import MapValue, OptionalValue, SequenceValue, ValueType

ProtoValue = onnx.TensorProto | onnx.SequenceProto | onnx.OptionalProto | onnx.MapProto


# ------------------------------------------------------------------ types
def type_proto(type_text: str, shape: list | None = None) -> onnx.TypeProto:
    """The TypeProto of a type string; `shape`: the dimensions of a tensor type (names or sizes;
    None leaves the shape out)."""
    return _type_proto(containers.parse_type(type_text), shape)


def _type_proto(t: ValueType, shape: list | None) -> onnx.TypeProto:
    if t.kind == "tensor":
        return helper.make_tensor_type_proto(dtypes.get(t.elem).onnx, shape)
    if t.kind == "seq":
        return helper.make_sequence_type_proto(_type_proto(t.inner, None))
    if t.kind == "optional":
        return helper.make_optional_type_proto(_type_proto(t.inner, None))
    return helper.make_map_type_proto(dtypes.get(t.key).onnx, _type_proto(t.inner, None))


def type_string(tp: onnx.TypeProto) -> str | None:
    """The canonical type string of a TypeProto (a tensor's element name alone); None for a type
    opconform has no name for (a sparse tensor, an unset element type)."""
    t = _value_type(tp)
    if t is None:
        return None
    return t.elem if t.kind == "tensor" else str(t)


def _value_type(tp: onnx.TypeProto) -> ValueType | None:
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        e = dtypes.BY_ONNX.get(tp.tensor_type.elem_type)
        return None if e is None else ValueType("tensor", elem=e.name)
    if which in ("sequence_type", "optional_type"):
        inner = _value_type(getattr(tp, which).elem_type)
        return None if inner is None else ValueType("seq" if which == "sequence_type" else "optional", inner=inner)
    if which == "map_type":
        key, inner = dtypes.BY_ONNX.get(tp.map_type.key_type), _value_type(tp.map_type.value_type)
        return None if key is None or inner is None else ValueType("map", key=key.name, inner=inner)
    return None


def is_tensor_type(tp: onnx.TypeProto) -> bool:
    return tp.WhichOneof("value") == "tensor_type"


# ------------------------------------------------------------------ values
def to_proto(x: Any, name: str) -> ProtoValue:
    """The proto holding `x` bit for bit (a tensor's strings as UTF-8 bytes)."""
    if isinstance(x, SequenceValue):
        return _sequence_proto(x, name)
    if isinstance(x, OptionalValue):
        return _optional_proto(x, name)
    if isinstance(x, MapValue):
        return _map_proto(x, name)
    return tensor_proto(x, name)


def tensor_proto(x: np.ndarray, name: str) -> onnx.TensorProto:
    x = np.asarray(x)
    if dtypes.name_of(x.dtype) == "string":
        flat = [s.encode("utf-8", "surrogateescape") for s in tensors.string_elements(x, f"tensor {name!r}")]
        return helper.make_tensor(name, onnx.TensorProto.STRING, x.shape, flat)
    return numpy_helper.from_array(x, name)


_ELEM = {"tensor": onnx.SequenceProto.TENSOR, "seq": onnx.SequenceProto.SEQUENCE,
         "map": onnx.SequenceProto.MAP, "optional": onnx.SequenceProto.OPTIONAL}
_FIELD = {"tensor": "tensor_values", "seq": "sequence_values", "map": "map_values", "optional": "optional_values"}


def _sequence_proto(x: SequenceValue, name: str) -> onnx.SequenceProto:
    inner = containers.parse_type(x.type).inner
    out = onnx.SequenceProto(name=name, elem_type=_ELEM[inner.kind])
    getattr(out, _FIELD[inner.kind]).extend(to_proto(i, "") for i in x.items)
    return out


def _optional_proto(x: OptionalValue, name: str) -> onnx.OptionalProto:
    inner = containers.parse_type(x.type).inner
    kind = {"tensor": onnx.OptionalProto.TENSOR, "seq": onnx.OptionalProto.SEQUENCE,
            "map": onnx.OptionalProto.MAP, "optional": onnx.OptionalProto.OPTIONAL}[inner.kind]
    out = onnx.OptionalProto(name=name, elem_type=kind)
    if x.value is not None:
        field = {"tensor": "tensor_value", "seq": "sequence_value", "map": "map_value", "optional": "optional_value"}[inner.kind]
        getattr(out, field).CopyFrom(to_proto(x.value, ""))
    return out


def _map_proto(x: MapValue, name: str) -> onnx.MapProto:
    t = containers.parse_type(x.type)
    out = onnx.MapProto(name=name, key_type=dtypes.get(t.key).onnx)
    if t.key == "string":
        out.string_keys.extend(k.encode("utf-8", "surrogateescape") for k in tensors.string_elements(x.keys, f"map {name!r} keys"))
    else:
        out.keys.extend(int(k) for k in x.keys)
    values = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
    values.tensor_values.extend(tensor_proto(np.asarray(v).reshape(()), "") for v in x.values)
    out.values.CopyFrom(values)
    return out


def from_proto(p: ProtoValue, type_text: str | None = None) -> Any:
    """A value from its proto (to_proto's inverse). `type_text`: the type it has, for an empty
    sequence or optional whose proto does not say its tensors' element type (the graph's
    declaration does)."""
    if isinstance(p, onnx.TensorProto):
        return _tensor(p)
    t = None if type_text is None else containers.parse_type(type_text)
    return _from(p, t)


def _tensor(p: onnx.TensorProto) -> np.ndarray:
    a = numpy_helper.to_array(p)
    if a.dtype == object:
        a = np.array([s.decode("utf-8", "surrogateescape") if isinstance(s, bytes) else s for s in a.reshape(-1)],
                     dtype=object).reshape(a.shape)
    return a


def _from(p: Any, t: ValueType | None) -> Any:
    if isinstance(p, onnx.TensorProto):
        return _tensor(p)
    if isinstance(p, onnx.SequenceProto):
        field = {v: k for k, v in _ELEM.items()}.get(p.elem_type, "tensor")
        items = [_from(i, None if t is None else t.inner) for i in getattr(p, _FIELD[field])]
        return SequenceValue(_type_text("seq", t, items), tuple(items))
    if isinstance(p, onnx.OptionalProto):
        held = None
        for f in ("tensor_value", "sequence_value", "map_value", "optional_value"):
            if p.HasField(f):
                held = _from(getattr(p, f), None if t is None else t.inner)
        return OptionalValue(_type_text("optional", t, [] if held is None else [held]), held)
    if isinstance(p, onnx.MapProto):
        key = dtypes.BY_ONNX[p.key_type].name
        keys = np.array([k.decode("utf-8", "surrogateescape") for k in p.string_keys], dtype=object) if key == "string" \
            else np.array(list(p.keys), dtype=np.int64)
        vals = [_tensor(v).reshape(-1)[0] for v in p.values.tensor_values]  # scalars, not 0-d arrays
        elem = t.inner.elem if t is not None else (containers.type_of(vals[0]) if vals else "float32")
        v = np.array(vals, dtype=dtypes.numpy_dtype(elem)).reshape(-1)
        return MapValue(f"map({key},tensor({elem}))", keys, v)
    raise TypeError(f"not a value proto: {type(p).__name__}")


def _type_text(kind: str, t: ValueType | None, held: list) -> str:
    if t is not None:
        return str(t)
    if not held:
        raise ValueError(f"an empty {kind} without a declared type: its element type is unknown")
    inner = containers.type_of(held[0])
    return f"{kind}({inner if containers.is_container_type(inner) else f'tensor({inner})'})"


def read(path: Any, type_text: str | None = None) -> Any:
    """The value a .pb file holds: a TensorProto, SequenceProto, OptionalProto or MapProto, tried
    in the order the type says (a tensor when no type is given)."""
    data = open(path, "rb").read()
    kind = "tensor" if type_text is None or not containers.is_container_type(type_text) else containers.parse_type(type_text).kind
    proto = {"tensor": onnx.TensorProto, "seq": onnx.SequenceProto, "optional": onnx.OptionalProto, "map": onnx.MapProto}[kind]()
    proto.ParseFromString(data)
    return from_proto(proto, type_text)
