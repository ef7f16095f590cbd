"""Hook for onnx_ml::LabelEncoder: the keys drawn from X's own values, so lookups hit (independent draws almost never match) and some miss.

The keys are most of X's distinct values plus one X lacks, in a drawn order, in the keys_*
attribute of X's element type (keys_tensor where version 4 has no list of that type, or where
the draft set it; version 4 repeats a key now and then: the last one's value wins); the values
are drawn in the kind the draft's values_* attribute has, one per key; a default_tensor is
redrawn in the values' type (one element). Version 1's list is classes_strings, indexed by X's
integers or searched for X's strings."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import values as value_draws
from opconform.generator.draft import Draft
from opconform.generator.families import default

_LISTS = {"float32": "floats", "int64": "int64s", "string": "strings"}
_VALUE_TYPES = ("string", "int64", "float32", "int32", "int16", "float64")


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    if x is None:
        return
    name = "string" if x.dtype.kind in "OUST" else dtypes.name_of(x.dtype)
    present = sorted({_plain(v, name) for v in x.reshape(-1).tolist()}, key=repr)
    kept = [v for v in present if draw(st.integers(0, 3)) > 0]  # most values found, some missed
    keys = kept + [_absent(present, name)]
    keys = [keys[i] for i in draw(st.permutations(range(len(keys))))]
    if d.spec.since >= 4 and kept and draw(st.integers(0, 3)) == 0:
        keys.append(kept[0])  # version 4 says which of a repeated key's values wins: the last
    d.notes.append(f"keys:{len(kept)}of{len(present)}")
    if d.spec.since == 1:
        d.attributes["classes_strings"] = [f"label_{k}" for k in range(len(present) + 1)] if name != "string" else [str(k) for k in keys]
        return
    _set_keys(draw, d, name, keys)
    _set_values(draw, d, len(keys))


def _plain(v, name: str):
    return str(v) if name == "string" else (float(v) if name.startswith("float") else int(v))


def _absent(present: list, name: str):
    """A key no element of X equals: a string, or the first small number X lacks."""
    if name == "string":
        return "not_in_x"
    taken = {v for v in present if v == v}
    return next(v for k in range(len(taken) + 1) for v in (k, -k) if v not in taken)


def _set_keys(draw, d: Draft, name: str, keys: list) -> None:
    had_tensor = "keys_tensor" in d.attributes
    for suffix in ("floats", "int64s", "strings", "tensor"):
        d.attributes.pop(f"keys_{suffix}", None)
    if d.spec.since >= 4 and (name not in _LISTS or had_tensor or draw(st.booleans())):
        d.attributes["keys_tensor"] = np.array(keys, dtype=object if name == "string" else dtypes.get(name).numpy)
    else:
        d.attributes[f"keys_{_LISTS[name]}"] = keys


def _set_values(draw, d: Draft, count: int) -> None:
    given = [s for s in ("floats", "int64s", "strings", "tensor") if f"values_{s}" in d.attributes]
    kind = given[0] if given else draw(st.sampled_from(("floats", "int64s", "strings") + (("tensor",) if d.spec.since >= 4 else ())))
    for s in ("floats", "int64s", "strings", "tensor"):
        d.attributes.pop(f"values_{s}", None)
    if kind == "tensor":
        name = draw(st.sampled_from(_VALUE_TYPES))
    else:
        name = {"floats": "float32", "int64s": "int64", "strings": "string"}[kind]
    drawn = draw(value_draws.arrays(name, (count,)))
    if kind == "tensor":
        d.attributes["values_tensor"] = drawn
    else:
        d.attributes[f"values_{kind}"] = [str(v) for v in drawn] if name == "string" else drawn.tolist()
    if "default_tensor" in d.attributes:
        d.attributes["default_tensor"] = draw(value_draws.arrays(name, (1,)))
