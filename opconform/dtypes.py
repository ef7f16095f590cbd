"""Element types: one canonical name per type, mapped to NumPy, ONNX and OpenVINO.

Spec files, cases, manifests and reports all name element types by the canonical
names below (``float32``, ``bfloat16``, ``string``...). Extended float types come
from ml_dtypes, the same package onnx and JAX use, so bit patterns agree.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class ElementType:
    name: str  # canonical opconform name
    onnx: int  # onnx.TensorProto.DataType value
    onnx_str: str  # as onnx.defs prints it: "tensor(float)"
    numpy: np.dtype | None  # None where no NumPy dtype can hold it
    openvino: str | None  # openvino.Type attribute name

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def kind(self) -> str:
        """'float', 'complex', 'int', 'uint', 'bool' or 'string'."""
        if self.name == "string":
            return "string"
        if self.name == "bool":
            return "bool"
        if self.name.startswith("complex"):
            return "complex"
        if self.name.startswith("uint"):
            return "uint"
        if self.name.startswith("int"):
            return "int"
        return "float"


def _t(name, onnx, onnx_str, np_dtype, ov):
    return ElementType(name, onnx, f"tensor({onnx_str})", None if np_dtype is None else np.dtype(np_dtype), ov)


_ALL = [
    _t("float32", 1, "float", np.float32, "f32"),
    _t("uint8", 2, "uint8", np.uint8, "u8"),
    _t("int8", 3, "int8", np.int8, "i8"),
    _t("uint16", 4, "uint16", np.uint16, "u16"),
    _t("int16", 5, "int16", np.int16, "i16"),
    _t("int32", 6, "int32", np.int32, "i32"),
    _t("int64", 7, "int64", np.int64, "i64"),
    _t("string", 8, "string", np.object_, "string"),
    _t("bool", 9, "bool", np.bool_, "boolean"),
    _t("float16", 10, "float16", np.float16, "f16"),
    _t("float64", 11, "double", np.float64, "f64"),
    _t("uint32", 12, "uint32", np.uint32, "u32"),
    _t("uint64", 13, "uint64", np.uint64, "u64"),
    _t("complex64", 14, "complex64", np.complex64, None),
    _t("complex128", 15, "complex128", np.complex128, None),
    _t("bfloat16", 16, "bfloat16", ml_dtypes.bfloat16, "bf16"),
    _t("float8e4m3fn", 17, "float8e4m3fn", ml_dtypes.float8_e4m3fn, "f8e4m3"),
    _t("float8e4m3fnuz", 18, "float8e4m3fnuz", ml_dtypes.float8_e4m3fnuz, None),
    _t("float8e5m2", 19, "float8e5m2", ml_dtypes.float8_e5m2, "f8e5m2"),
    _t("float8e5m2fnuz", 20, "float8e5m2fnuz", ml_dtypes.float8_e5m2fnuz, None),
    _t("uint4", 21, "uint4", ml_dtypes.uint4, "u4"),
    _t("int4", 22, "int4", ml_dtypes.int4, "i4"),
    _t("float4e2m1", 23, "float4e2m1", ml_dtypes.float4_e2m1fn, "f4e2m1"),
    _t("float8e8m0", 24, "float8e8m0", ml_dtypes.float8_e8m0fnu, "f8e8m0"),
    _t("uint2", 25, "uint2", getattr(ml_dtypes, "uint2", None), None),
    _t("int2", 26, "int2", getattr(ml_dtypes, "int2", None), None),
    _t("float6e2m3", 27, "float6e2m3", getattr(ml_dtypes, "float6_e2m3fn", None), None),
    _t("float6e3m2", 28, "float6e3m2", getattr(ml_dtypes, "float6_e3m2fn", None), None),
]

BY_NAME: dict[str, ElementType] = {t.name: t for t in _ALL}
# NumPy dtype -> name, the first element type holding it (name_of runs for every tensor encoded)
_BY_DTYPE: dict[np.dtype, str] = {}
for _t in _ALL:
    if _t.numpy is not None:
        _BY_DTYPE.setdefault(np.dtype(_t.numpy), _t.name)
BY_ONNX: dict[int, ElementType] = {t.onnx: t for t in _ALL}
BY_ONNX_STR: dict[str, ElementType] = {t.onnx_str: t for t in _ALL}
NAMES: tuple[str, ...] = tuple(BY_NAME)


class UnknownElementType(ValueError):
    pass


def get(name: str) -> ElementType:
    try:
        return BY_NAME[name]
    except KeyError:
        raise UnknownElementType(f"unknown element type {name!r}; expected one of {', '.join(NAMES)}") from None


def numpy_dtype(name: str) -> np.dtype:
    t = get(name)
    if t.numpy is None:
        raise UnknownElementType(f"element type {name!r} has no NumPy dtype in this ml_dtypes version")
    return t.numpy


def name_of(dtype: np.dtype | type) -> str:
    """Canonical name of a NumPy dtype (object arrays are taken to hold strings)."""
    dtype = np.dtype(dtype)
    if dtype.kind in ("O", "U", "S"):
        return "string"
    name = _BY_DTYPE.get(dtype)
    if name is None:
        raise UnknownElementType(f"NumPy dtype {dtype} has no opconform element type")
    return name
