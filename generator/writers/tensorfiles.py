"""Tensor files beside a model: TensorProto (.pb) for ONNX test data, NumPy (.npy) for OpenVINO IR.

NumPy has no native bfloat16/float8/int4: such arrays are stored as their raw bits
(uint8/uint16 .npy) and the manifest names the real element type ("stored_as": "bits").
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from opconform import containers, dtypes, tensors
from opconform.generator import value_protos

_NATIVE = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "bool", "complex64", "complex128"}


def write_pb(path: Path, x: np.ndarray, name: str) -> dict:
    """A TensorProto, or for a sequence, optional or map its SequenceProto, OptionalProto or MapProto."""
    path.write_bytes(value_protos.to_proto(x, name).SerializeToString())
    return describe(path, x, name)


def write_npy(path: Path, x: np.ndarray, name: str) -> dict:
    etype = dtypes.name_of(x.dtype)
    entry = describe(path, x, name)
    if etype == "string":
        flat = tensors.string_elements(x, f"tensor {name!r}")
        if any(s.endswith("\0") for s in flat):  # NumPy's fixed-width str type drops trailing NULs
            raise ValueError(f"tensor {name!r}: a string ending in NUL cannot be stored in .npy")
        data = np.array(flat, dtype=np.str_).reshape(x.shape)
    elif etype in _NATIVE:
        data = np.array(x, order="C")  # not ascontiguousarray: it turns 0-d arrays into 1-d
    else:
        data = np.array(x, order="C").view({1: np.uint8, 2: np.uint16}[x.dtype.itemsize])
        entry["stored_as"] = "bits"
    with path.open("wb") as f:
        np.save(f, data, allow_pickle=False)
    return entry


def read_npy(path: Path, element_type: str) -> np.ndarray:
    """Inverse of write_npy."""
    data = np.load(path, allow_pickle=False)
    if element_type == "string":
        return data.astype(object)
    if element_type in _NATIVE:
        return data
    return data.view(dtypes.numpy_dtype(element_type))


def describe(path: Path, x: np.ndarray, name: str) -> dict:
    if containers.is_container(x):  # its type string in place of an element type; no shape
        return {"name": name, "file": path.name, "element_type": x.type, "shape": []}
    return {"name": name, "file": path.name, "element_type": dtypes.name_of(x.dtype), "shape": list(x.shape)}
