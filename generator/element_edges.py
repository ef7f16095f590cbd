"""The edge values of every element type, by class, and the classes an array holds: plain NumPy,
no Hypothesis (values.py draws from them), so that judging and reports can name what a case
exercises without importing the generator's strategies.

Float values travel as bit patterns, so NaN payloads, signalling NaNs and -0.0 survive.
`edge_classes(dtype)` names the classes a type has and `classes_in(array)` names those an array
holds: tests measure coverage with them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import ml_dtypes
import numpy as np

from opconform import dtypes

# the next narrower type of each type: values beyond it / finer than it are edge values
NARROWER = {
    "float64": "float32", "float32": "bfloat16", "bfloat16": "float8e4m3fn", "float16": "float8e4m3fn",
    "int64": "int32", "int32": "int16", "int16": "int8", "uint64": "uint32", "uint32": "uint16", "uint16": "uint8",
}
# a class of tensors rather than of elements: no element at all (a zero-sized side, any rank)
EMPTY_TENSOR = "empty_tensor"
# every class name in one fixed order (zero first: the plainest, defined for every conversion),
# so a factor built from several element types lists its classes the same way in every process
CLASS_ORDER = ("zero", "-0.0", "nan", "+inf", "-inf", "subnormal", "smallest_normal", "max", "lowest",
               "beyond_narrower", "below_narrower_precision", "minus_one", "beyond_float64_exact",
               "false", "true", "empty", "non_ascii", "long", EMPTY_TENSOR)
_UINT_FOR_BYTES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_STRINGS = ["", "a", "ab", "A", "\u00e4", "\u65e5\u672c", "a b", "zz" * 20, "0", "-"]


def _np(name: str) -> np.dtype:
    return dtypes.numpy_dtype(name)


def _bits(name: str) -> int:
    dt = _np(name)
    try:
        return int(ml_dtypes.finfo(dt).bits) if dtypes.get(name).kind == "float" else int(ml_dtypes.iinfo(dt).bits)
    except (ValueError, TypeError):
        return dt.itemsize * 8


def _from_bits(name: str, bits: Sequence[int]) -> np.ndarray:
    dt = _np(name)
    return np.array(list(bits), dtype=_UINT_FOR_BYTES[dt.itemsize]).view(dt)


def _to_bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(_UINT_FOR_BYTES[a.dtype.itemsize])


# ------------------------------------------------------------------ edge values
@lru_cache(maxsize=None)
def _float_specials(name: str) -> dict[str, tuple[int, ...]]:
    """Edge class -> bit patterns, for a float type."""
    dt = _np(name)
    fi = ml_dtypes.finfo(dt) if dt not in (np.float32, np.float64, np.float16) else np.finfo(dt)
    if _bits(name) <= 16:
        table = _from_bits(name, range(1 << _bits(name)))
    else:
        w = _bits(name)
        sign, expo = 1 << (w - 1), (((1 << (w - 1)) - 1) >> (23 if w == 32 else 52)) << (23 if w == 32 else 52)
        quiet = 1 << (22 if w == 32 else 51)
        extra = [expo | quiet, sign | expo | quiet, expo | quiet | 1, expo | 1, sign | 1, 1, (quiet * 2 - 1)]
        specials = [float(fi.max), float(fi.min), float(fi.smallest_normal), -float(fi.smallest_normal),
                    np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0]
        table = np.concatenate([_from_bits(name, extra), np.array(specials).astype(dt)])
    bits = _to_bits(table)
    with np.errstate(invalid="ignore", over="ignore"):
        f = table.astype(np.float64)
        nan = np.isnan(f)
        classes = {
            "zero": bits[(f == 0) & ~np.signbit(f)],
            "nan": bits[nan],
            "+inf": bits[np.isposinf(f)],
            "-inf": bits[np.isneginf(f)],
            "-0.0": bits[(f == 0) & np.signbit(f)],
            "subnormal": bits[np.isfinite(f) & (f != 0) & (np.abs(f) < float(fi.smallest_normal))],
            "max": bits[f == float(fi.max)],
            "lowest": bits[f == float(fi.min)],
            "smallest_normal": bits[np.abs(f) == float(fi.smallest_normal)],
        }
    out = {k: tuple(int(b) for b in _spread(np.unique(v))) for k, v in classes.items() if v.size}
    fine = _finer_than_narrower(name)
    if fine is not None:
        out["below_narrower_precision"] = fine
    past = _past_narrower_range(name)
    if past:
        out["beyond_narrower"] = past
    return out


def _spread(sorted_bits: np.ndarray, n: int = 4) -> np.ndarray:
    """A few members of a class: both ends and some between (e.g. NaN payloads)."""
    if sorted_bits.size <= n:
        return sorted_bits
    return sorted_bits[np.unique(np.linspace(0, sorted_bits.size - 1, n).round().astype(int))]


def _finer_than_narrower(name: str) -> tuple[int, ...] | None:
    """1 + one ulp of this type, and -3 - one ulp: distinct here, equal after narrowing."""
    narrower = NARROWER.get(name)
    if narrower is None:
        return None
    dt = _np(name)
    one, three = np.array([1.0, -3.0]).astype(dt)
    ulp = _from_bits(name, [int(_to_bits(np.array([one]))[0]) + 1, int(_to_bits(np.array([three]))[0]) + 1])
    return tuple(int(b) for b in _to_bits(ulp))


def _past_narrower_range(name: str) -> tuple[int, ...]:
    """Values just past the next narrower type's largest finite value, both signs: the first one
    above it (round-to-nearest brings it back to that maximum) and the first at or above the
    halfway point to the next step (the rounding tie: narrowing goes past the range, to inf, NaN
    or a saturated value by the target's rules)."""
    narrower = NARROWER.get(name)
    if narrower is None or dtypes.get(narrower).kind != "float":
        return ()
    dt, nt = _np(name), _np(narrower)
    top = float(ml_dtypes.finfo(nt).max)
    below = float(_from_bits(narrower, [int(_to_bits(np.array([top], dtype=nt))[0]) - 1])[0])
    out = []
    for target, strictly in ((top, True), (top + (top - below) / 2, False)):
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.array([target]).astype(dt)
            b = int(_to_bits(v)[0])
            if float(v[0]) < target or (strictly and float(v[0]) == target):
                b += 1  # the next value of this type up (positive floats: the next bit pattern)
            if np.isfinite(float(_from_bits(name, [b])[0].astype(np.float64))):
                out.append(b)
    sign = 1 << (_bits(name) - 1)
    return tuple(dict.fromkeys(out + [b | sign for b in out]))


def value_classes(name: str) -> tuple[str, ...]:
    """The value classes of an element type in CLASS_ORDER: its edge classes and the empty tensor."""
    own = edge_classes(name) | {EMPTY_TENSOR}
    return tuple(c for c in CLASS_ORDER if c in own)


@lru_cache(maxsize=None)
def _int_specials(name: str) -> dict[str, tuple[int, ...]]:
    info = ml_dtypes.iinfo(_np(name))
    out = {"max": (int(info.max),), "lowest": (int(info.min),), "zero": (0,)}
    if info.min < 0:
        out["minus_one"] = (-1,)
    narrower = NARROWER.get(name)
    if narrower is not None:
        n = ml_dtypes.iinfo(_np(narrower))
        out["beyond_narrower"] = tuple(v for v in (int(n.max) + 1, int(n.min) - 1) if info.min <= v <= info.max)
    if name in ("int64", "uint64"):
        out["beyond_float64_exact"] = ((1 << 53) + 1,)
    return out


def edge_values(name: str) -> dict[str, tuple]:
    """Edge class -> values in storage form (bit patterns for floats, ints, bools, strs)."""
    kind = dtypes.get(name).kind
    if kind == "float":
        return dict(_float_specials(name))
    if kind in ("int", "uint"):
        return dict(_int_specials(name))
    if kind == "bool":
        return {"true": (True,), "false": (False,)}
    if kind == "string":
        return {"empty": ("",), "non_ascii": ("\u00e4", "\u65e5\u672c"), "long": ("zz" * 20,)}
    if kind == "complex":
        part = "float32" if name == "complex64" else "float64"
        return {k: v for k, v in _float_specials(part).items() if k in ("nan", "+inf", "-inf", "-0.0", "subnormal")}
    return {}


def edge_classes(name: str) -> set[str]:
    """The edge classes an element type has. (Several NaN payloads: see nan_payloads_in.)"""
    return set(edge_values(name))


def nan_payloads_in(a: np.ndarray) -> set[int]:
    """Bit patterns of the NaNs in a float array (complex: of its parts)."""
    a = np.asarray(a)
    kind = dtypes.get(dtypes.name_of(a.dtype)).kind
    if kind == "complex":
        a = np.ascontiguousarray(a).view(np.float32 if a.dtype == np.complex64 else np.float64)
    elif kind != "float":
        return set()
    flat = a.reshape(-1)
    with np.errstate(invalid="ignore"):
        mask = np.isnan(flat.astype(np.float64))
    return set(int(b) for b in _to_bits(flat[mask]))


def classes_in(a: np.ndarray) -> set[str]:
    """The edge classes present in an array (inverse of edge_values)."""
    a = np.asarray(a)
    name = dtypes.name_of(a.dtype)
    kind = dtypes.get(name).kind
    if a.size == 0:
        return set()
    if kind == "complex":
        part = np.ascontiguousarray(a).view(np.float32 if name == "complex64" else np.float64)
        return classes_in(part) & edge_classes(name)
    found = set()
    if kind == "float":
        bits = set(int(b) for b in _to_bits(a.reshape(-1)))
        for cls, members in _float_specials(name).items():
            if cls == "nan":
                continue
            if bits & set(members):
                found.add(cls)
        if nan_payloads_in(a):
            found.add("nan")
        if "subnormal" in edge_classes(name):  # any subnormal, not only the listed ones
            with np.errstate(invalid="ignore"):
                f = a.astype(np.float64)
            fi = ml_dtypes.finfo(a.dtype) if a.dtype not in (np.float32, np.float64, np.float16) else np.finfo(a.dtype)
            with np.errstate(invalid="ignore"):
                if np.any(np.isfinite(f) & (f != 0) & (np.abs(f) < float(fi.smallest_normal))):
                    found.add("subnormal")
        return found
    flat = a.reshape(-1).tolist()
    for cls, members in edge_values(name).items():
        if set(members) & set(flat if kind != "string" else [str(s) for s in flat]):
            found.add(cls)
    return found


def from_elements(name: str, storage: Sequence, shape: Sequence[int]) -> np.ndarray:
    """An array from values in storage form (bit patterns for floats)."""
    kind = dtypes.get(name).kind
    shape = tuple(int(s) for s in shape)
    if kind == "string":
        return np.array(list(storage), dtype=object).reshape(shape)
    if kind == "float":
        return _from_bits(name, storage).reshape(shape)
    if kind == "complex":
        part = "float32" if name == "complex64" else "float64"
        return _from_bits(part, storage).view(_np(name)).reshape(shape)
    return np.array(list(storage), dtype=_np(name)).reshape(shape)
