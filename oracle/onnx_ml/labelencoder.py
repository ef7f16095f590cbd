"""ai.onnx.ml LabelEncoder-1, -2 and -4: every element of X looked up among the keys, replaced by
the value at the key's position or by the default of the values' type where no key equals it.

Version 1 keys strings by their index in classes_strings (X's type picks the direction); version
2 compares float keys by their bits, version 4 as numbers with every NaN equal and the last of a
repeated key winning."""
from __future__ import annotations

import numpy as np

from opconform import dtypes

# the defaults default_tensor's text gives when neither it nor a values_* list says one
_TENSOR_DEFAULTS = {"string": "_Unused", "float": -0.0, "int": -1}
_LIST_KINDS = (("floats", "float32", "default_float"), ("int64s", "int64", "default_int64"),
               ("strings", "string", "default_string"))


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    if spec.since == 1:
        return (_version_1(x, attributes),)
    keys, _ = _pick(attributes, "keys")
    values, values_type = _pick(attributes, "values")
    default = _default(attributes, values_type, spec.since)
    table = _table(keys, values, bitwise=spec.since == 2)
    bitwise = spec.since == 2 and x.dtype == np.float32  # X's own bits: a signaling NaN is not quieted
    elements = x.reshape(-1).view(np.uint32).tolist() if bitwise else x.reshape(-1).tolist()
    flat = [table.get(("bits", v) if bitwise else _key(v, False), default) for v in elements]
    out = np.array(flat, dtype=object if values_type == "string" else dtypes.get(values_type).numpy)
    return (out.reshape(x.shape),)


def _version_1(x: np.ndarray, attributes: dict) -> np.ndarray:
    classes = list(attributes.get("classes_strings") or [])
    if x.dtype.kind in "OUS":
        index = {}
        for i, c in enumerate(classes):
            index.setdefault(c, i)
        default = int(attributes["default_int64"])
        return np.array([index.get(str(v), default) for v in x.reshape(-1)], dtype=np.int64).reshape(x.shape)
    default = attributes["default_string"]
    out = [classes[v] if 0 <= v < len(classes) else default for v in x.reshape(-1).tolist()]
    return np.array(out, dtype=object).reshape(x.shape)


def _pick(attributes: dict, prefix: str) -> tuple[list, str]:
    """The one keys_* (or values_*) attribute set, as a list, and its element type's name."""
    tensor = attributes.get(f"{prefix}_tensor")
    if tensor is not None:
        t = np.asarray(tensor)
        return t.reshape(-1).tolist(), dtypes.name_of(t.dtype)
    for suffix, name, _ in _LIST_KINDS:
        v = attributes.get(f"{prefix}_{suffix}")
        if v is not None:
            v = list(v)
            return ([float(np.float32(f)) for f in v] if name == "float32" else v), name
    raise ValueError(f"no {prefix}_* attribute is set")


def _default(attributes: dict, values_type: str, since: int):
    """default_tensor's value where set, else the default_* list attribute of the values' kind
    (a values_* list), else the text's default for values_tensor's type."""
    tensor = attributes.get("default_tensor") if since >= 4 else None
    if tensor is not None:
        return np.asarray(tensor).reshape(-1).tolist()[0]
    if since >= 4 and attributes.get("values_tensor") is not None:
        return _TENSOR_DEFAULTS[dtypes.get(values_type).kind if values_type != "string" else "string"]
    name = next(d for _, t, d in _LIST_KINDS if t == values_type)
    return float(np.float32(attributes[name])) if values_type == "float32" else attributes[name]


def _key(v, bitwise: bool):
    """The dictionary key of an element or key: a float's float32 bits (version 2), else its
    value, with every NaN one key and -0.0 the key of 0.0 (a dict compares floats by ==)."""
    if isinstance(v, float):
        if bitwise:
            return ("bits", int(np.float32(v).view(np.uint32)))
        if v != v:
            return ("nan",)
        return v + 0.0
    if isinstance(v, bytes):
        return v.decode("utf-8")
    return v


def _table(keys: list, values: list, bitwise: bool) -> dict:
    """Key -> value, a repeated key taking the last position's value."""
    return {_key(k, bitwise): v for k, v in zip(keys, values)}
