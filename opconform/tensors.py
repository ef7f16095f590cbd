"""Arrays to and from JSON-safe dicts, byte-exactly (NaN payloads and -0.0 survive).

Numeric arrays travel as base64 of their little-endian bytes, so a case written on one
machine replays bit for bit on another. String arrays travel as lists of str.
"""
from __future__ import annotations

import base64
import hashlib
from typing import Any, Mapping

import numpy as np

from opconform import dtypes


def string_elements(a: np.ndarray, what: str = "string tensor") -> list[str]:
    """The elements of a string (object) array as str, bytes decoded as UTF-8 (surrogateescape,
    so any bytes survive a round trip). Anything else is a TypeError naming `what` and the element:
    str() of it would hide a defect (a 0-d array stored as an element prints as its string, and
    bytes() of it is its memory), making files and ids differ from run to run."""
    out = []
    for k, x in enumerate(np.asarray(a).reshape(-1)):
        if isinstance(x, bytes):
            x = x.decode("utf-8", "surrogateescape")
        elif not isinstance(x, str):
            raise TypeError(f"{what}: element {k} is a {type(x).__name__}, expected str or bytes")
        out.append(str(x))  # str(): a NumPy str_ element becomes a plain str
    return out


def encode(a: np.ndarray) -> dict:
    a = np.asarray(a)
    name = dtypes.name_of(a.dtype)
    if name == "string":
        return {"dtype": name, "shape": list(a.shape), "strings": string_elements(a)}
    raw = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
    return {"dtype": name, "shape": list(a.shape), "b64": base64.b64encode(raw).decode("ascii")}


def decode(d: Mapping[str, Any]) -> np.ndarray:
    try:
        name, shape = d["dtype"], tuple(d["shape"])
        if name == "string":
            return np.array(list(d["strings"]), dtype=object).reshape(shape)
        dt = dtypes.numpy_dtype(name)
        raw = base64.b64decode(d["b64"], validate=True)
        return np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt).reshape(shape)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"corrupt encoded tensor: expected dtype, shape and b64/strings fields ({e})") from None


def from_data(dtype: str, data: Any, shape: list[int] | None = None) -> np.ndarray:
    """An array from nested lists as written in spec examples (YAML)."""
    if dtype == "string":
        a = np.array(data, dtype=object)
    elif dtypes.get(dtype).kind == "complex":
        a = np.array(_complex(data), dtype=dtypes.numpy_dtype(dtype))
    else:
        # through float64 so that ml_dtypes types accept Python floats such as .nan
        dt = dtypes.numpy_dtype(dtype)
        kind = dtypes.get(dtype).kind
        a = np.array(data, dtype=np.float64 if kind == "float" else dt).astype(dt)
    if shape is not None:
        a = a.reshape(shape)
    return a


def _complex(data: Any) -> Any:
    if isinstance(data, list):
        return [_complex(x) for x in data]
    return complex(data)


def digest(a: np.ndarray) -> bytes:
    """A content hash that sees dtype, shape and every bit."""
    e = encode(a)
    h = hashlib.sha256()
    h.update(e["dtype"].encode())
    h.update(repr(e["shape"]).encode())
    if "strings" in e:
        for s in e["strings"]:
            h.update(s.encode("utf-8", "surrogateescape") + b"\0")
    else:
        h.update(e["b64"].encode())
    return h.digest()
