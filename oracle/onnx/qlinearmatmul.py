"""ONNX QLinearMatMul: y = saturate(round(x / y_scale) + y_zero_point), x the real product
((a - a_zero_point) * a_scale) x ((b - b_zero_point) * b_scale) as numpy.matmul. A scale and zero
point are per tensor (one element), per row of a ([M] for a 2-D a, [.., M, 1]) or per column of
b ([N] for a 2-D b, [.., 1, N]).

Policy intermediate_precision: `wide` -- x / y_scale exact (float64), rounded half to even;
`input_type` -- the accumulation (a - a_zero_point) x (b - b_zero_point) in float32 times the
multiplier a_scale * b_scale / y_scale computed in float32. Integer accumulations that can leave
int32 raise the oracle-side relation integer_overflow (undefined), as in MatMulInteger."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import linalg, precision, quantize


def _laid_out(param, x: np.ndarray, per_row: bool) -> np.ndarray:
    """A scale or zero point shaped to broadcast against x: one element per tensor, a vector per
    row of a 2-D a ([M] -> [M, 1]) or per column of a 2-D b ([N] -> [1, N]), N-D ones as given."""
    p = np.asarray(param)
    if p.size == 1:
        return p.reshape(())
    if x.ndim == 2 and p.ndim == 1:
        return p[:, None] if per_row else p[None, :]
    return p


def _on_product(sa: np.ndarray, sb: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row and column scales laid out on the product's shape: numpy.matmul drops the
    dimension of a 1-D operand, so a per-row scale loses its column of 1 where b is a vector
    and a per-column scale its row of 1 where a is."""
    if b.ndim == 1 and sa.ndim:
        sa = sa[..., 0]
    if a.ndim == 1 and sb.ndim:
        sb = sb[..., 0, :]
    return sa, sb


def run(spec, inputs, attributes, policies):
    a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp = inputs
    a, b = np.asarray(a), np.asarray(b)
    integer = a.dtype.kind in "iu" and b.dtype.kind in "iu"
    t = np.int64 if integer else np.float64
    # float8 operands and zero points may be infinite: inf - inf is NaN, which saturate() meets
    # (quotient_not_nan for an integer y, NaN converted as Cast does for a float8 one)
    with np.errstate(invalid="ignore"):
        da = quantize.wide(a).astype(t) - quantize.wide(_laid_out(a_zp, a, True)).astype(t)
        db = quantize.wide(b).astype(t) - quantize.wide(_laid_out(b_zp, b, False)).astype(t)
    if integer:
        precision.refuse_overflow(spec.id, linalg.matmul_overflow(da, db, np.int32),
                                  "the int32 accumulation of (a - a_zero_point) x (b - b_zero_point)")
    sa, sb = quantize.wide(_laid_out(a_scale, a, True)), quantize.wide(_laid_out(b_scale, b, False))
    sy = quantize.wide(np.asarray(y_scale).reshape(()))
    with np.errstate(all="ignore"):
        if precision.narrow_policy(policies):
            f32 = np.float32
            ra, rb = _on_product(sa.astype(f32), sb.astype(f32), a, b)
            q = np.matmul(da, db).astype(f32) * ((ra * rb) / f32(sy)).astype(f32)
        else:
            q = np.matmul(da * sa, db * sb) / sy
    to = dtypes.name_of(np.asarray(y_zp).dtype)
    return (quantize.saturate(spec.id, np.asarray(q, dtype=np.float64), np.asarray(y_zp).reshape(()), to),)
