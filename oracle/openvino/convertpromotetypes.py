"""OpenVINO ConvertPromoteTypes-14: both inputs converted to their common type by the document's
promotion rules -- floating point over integer over boolean; two floats to the narrowest type
holding both mantissas and exponents ((f16, bf16) -> f32); two integers to the narrowest integer
holding both ranges, signed if either is (u64 with a signed integer: u64_integer_promotion_target);
with pytorch_scalar_promotion, a scalar beside a dimensioned tensor of the same priority takes the
tensor's type. Without promote_unsafe, a promotion that widens past both inputs, pairs u64 with a
signed integer, converts an integer to a float of less than twice its width, or narrows a range,
must be refused (oracle-side relation `unsafe_promotion`, error). A value the common type cannot
hold is undefined (`value_out_of_range`)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken, SpecVersion
from opconform.oracle.kernels.fp_extremes import extremes_are_data

# (kind, bits, signed) of each type; floats: (exponent bits, mantissa bits) decide their order
_INT = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}
_FLOAT = {"float8e4m3fn": (4, 3, 8), "float8e5m2": (5, 2, 8), "float16": (5, 10, 16), "bfloat16": (8, 7, 16),
          "float32": (8, 23, 32), "float64": (11, 52, 64)}
_TARGETS = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i64": "int64", "i32": "int32", "u64": "uint64"}


def _priority(t: str) -> int:
    return 2 if t in _FLOAT else 1 if t in _INT else 0


def _bits(t: str) -> int:
    return _FLOAT[t][2] if t in _FLOAT else _INT.get(t, 8)


def common_type(a: str, b: str, a_scalar: bool, b_scalar: bool, attributes: dict) -> tuple[str, str]:
    """(common type, why it is unsafe or '')."""
    pa, pb = _priority(a), _priority(b)
    if attributes.get("pytorch_scalar_promotion") and pa == pb and a_scalar != b_scalar:
        scalar, tensor = (a, b) if a_scalar else (b, a)
        # the scalar's range past the tensor type's: a narrowing conversion
        narrows = scalar != tensor and common_type(scalar, tensor, False, False, {"promote_unsafe": True,
                                                   "u64_integer_promotion_target": "f64"})[0] != tensor
        return tensor, ("the scalar's type holds more than the tensor's" if narrows else "")
    if pa != pb:
        hi, lo = (a, b) if pa > pb else (b, a)
        unsafe = hi in _FLOAT and lo in _INT and _bits(hi) < 2 * _bits(lo)
        return hi, ("a float narrower than twice the integer's width" if unsafe else "")
    if pa == 0 or a == b:
        return a, ""
    if pa == 2:
        if {a, b} == {"float8e4m3fn", "float8e5m2"}:  # the document's special case: f16, not bf16
            return "float16", "bit widening"
        (ea, ma, _), (eb, mb, _) = _FLOAT[a], _FLOAT[b]
        fits = [t for t, (e, m, _) in sorted(_FLOAT.items(), key=lambda kv: kv[1][2]) if e >= max(ea, eb) and m >= max(ma, mb)]
        result = fits[0]
        return result, ("bit widening" if _bits(result) > max(_bits(a), _bits(b)) else "")
    signed = [t for t in (a, b) if not t.startswith("u")]
    if not signed:
        result = a if _INT[a] >= _INT[b] else b
        return result, ""
    unsigned = [t for t in (a, b) if t.startswith("u")]
    if not unsigned:
        return (a if _INT[a] >= _INT[b] else b), ""
    u, s = unsigned[0], signed[0]
    if u == "uint64":
        return _TARGETS[attributes.get("u64_integer_promotion_target", "f32")], "u64 with a signed integer"
    width = max(_INT[s], 2 * _INT[u])
    result = f"int{width}"
    return result, ("bit widening" if width > max(_INT[s], _INT[u]) else "")


def _convert(x: np.ndarray, target: str, spec_id: str) -> np.ndarray:
    t = dtypes.numpy_dtype(target)
    if x.dtype.kind in "iub" and target in _INT:
        info = np.iinfo(t)
        vals = x.astype(object) if x.dtype.kind in "iu" else x.astype(np.int64)
        if x.size and (min(int(v) for v in vals.reshape(-1)) < info.min or max(int(v) for v in vals.reshape(-1)) > info.max):
            raise RelationBroken(spec_id, "value_out_of_range", "undefined", f"a value is outside {target}")
        return x.astype(t)
    with np.errstate(all="ignore"):
        y = x.astype(t)
    if x.dtype.kind == "f" or target not in _FLOAT:
        return y
    if np.any(np.isinf(y.astype(np.float64))):  # an integer past the float's range
        raise RelationBroken(spec_id, "value_out_of_range", "undefined", f"an integer is past {target}'s range")
    return y


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    ta, tb = dtypes.name_of(a.dtype), dtypes.name_of(b.dtype)
    target, unsafe = common_type(ta, tb, a.ndim == 0, b.ndim == 0, attributes)
    if unsafe and not attributes.get("promote_unsafe", False):
        raise RelationBroken(spec.id, "unsafe_promotion", "error", f"({ta}, {tb}) -> {target}: {unsafe}, promote_unsafe false")
    return _convert(a, target, spec.id), _convert(b, target, spec.id)
