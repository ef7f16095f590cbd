"""Linear quantization as the ONNX texts state it (QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, QLinearMatMul).

Quantize: `y = saturate((x / y_scale) + y_zero_point)`, the quotient rounded half to even for the
integer types and clamped to the type's range; for the float types (float8, float4, float6) the
sum is converted as Cast converts (round to nearest even, saturating unless `saturate` is 0).
Dequantize: `y = (x - x_zero_point) * x_scale`. A scale and zero point are per tensor (0-D, or a
one-element vector), per axis (1-D, the axis' length) or blocked (x's rank, the axis' dimension
ceil(D / block_size)); `expand` lays them out to broadcast against x.
"""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken
from opconform.oracle.kernels import cast

# the types whose quantized values are integers, and the range the texts saturate them to
INTEGER_RANGES = {
    "uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
    "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1), "int32": (-2**31, 2**31 - 1),
}
QUOTIENT_NAN = "quotient_not_nan"  # oracle-side relation (undefined): NaN has no integer to round to


def expand(param: np.ndarray, shape: tuple[int, ...], axis: int, block_size: int = 0) -> np.ndarray:
    """A scale or zero point laid out to broadcast against an x of `shape`: one element per
    tensor, a tensor of x's rank with block_size > 0 repeated block_size times along
    the axis (the last block cut to x's length), a vector along the axis."""
    param = np.asarray(param)
    if param.size == 1:  # one scale for every element, whatever the block or axis
        return param.reshape(())
    if block_size > 0 and param.ndim == len(shape):
        return np.take(np.repeat(param, block_size, axis=axis), np.arange(shape[axis]), axis=axis)
    dims = [1] * len(shape)
    dims[axis] = param.size
    return param.reshape(dims)


def wide(x: np.ndarray) -> np.ndarray:
    """float64 of any element type (ml_dtypes' narrow ints and floats included); NaN stays NaN."""
    with np.errstate(invalid="ignore"):
        return np.asarray(x).astype(np.float64)


def in_type(v: np.ndarray, name: str) -> np.ndarray:
    """v rounded to the float type `name` (float64 kept as it is), as float64 again."""
    if name == "float64":
        return v
    with np.errstate(over="ignore", invalid="ignore"):
        return v.astype(dtypes.numpy_dtype(name)).astype(np.float64)


def divide(x: np.ndarray, scale: np.ndarray, precision: str) -> np.ndarray:
    """x / scale with both operands and the quotient rounded to `precision` (float64: exact
    operands, one rounding)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return in_type(in_type(wide(x), precision) / in_type(wide(scale), precision), precision)


def saturate(spec_id: str, q: np.ndarray, zero_point: np.ndarray | None, to: str, saturate_floats: bool = True) -> np.ndarray:
    """saturate(q + zero_point) in `to`: integer types round q half to even first, then add the
    zero point and clamp; float types convert the sum as Cast does."""
    zp = 0.0 if zero_point is None else wide(zero_point)
    if to in INTEGER_RANGES:
        if np.isnan(q).any():
            first = [int(i) for i in np.argwhere(np.isnan(np.broadcast_to(q, np.shape(q))))[0]]
            raise RelationBroken(spec_id, QUOTIENT_NAN, "undefined",
                                 f"x / scale is NaN at {first}: the text rounds and saturates numbers, NaN is none")
        lo, hi = INTEGER_RANGES[to]
        y = np.clip(np.rint(q) + zp, lo, hi)
        return y.astype(np.int64).astype(dtypes.numpy_dtype(to))
    with np.errstate(invalid="ignore", over="ignore"):
        return cast.cast(np.asarray(q + zp, dtype=np.float64), to, saturate=saturate_floats)

