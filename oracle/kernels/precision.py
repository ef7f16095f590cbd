"""Intermediate precision, the open choice of every operator with arithmetic (issue 14).

The ONNX text of most operators gives a formula and an element type for the inputs and outputs,
and says nothing of the type intermediates are computed and accumulated in. Where it is silent the
spec has the policy

    intermediate_precision: {options: [wide, input_type]}

- `wide`: every step in float64 (which holds every narrower float exactly), rounded once to the
  output type: the mathematically exact result, up to float64's rounding.
- `input_type`: every step in the element type of the input (or, for LayerNormalization and
  GroupNormalization, the stash type the text prescribes), each operation rounded to it, sums and
  products accumulated in it (as NumPy reduces in that type): a square of 1e20 in float32 is
  inf, a float32 sum past 3.4e38 overflows, a float16 square of 1e-4 underflows to 0. Those are
  then allowed outcomes, because the text allows computing in the input's type.

The order of a sum is open too. `input_type` sums in NumPy's order (`total`: what
onnx.reference computes); other orders round differently, which the spec's tolerance covers,
except where a sum overflows in some orders and not in others: then the result (inf, -inf, NaN or
finite) depends on the order, and an implementation with another order can get another one.
Whole-output alternatives cannot hold a set of outcomes per element, so those cases can still fail.

Integer arithmetic is not a matter of precision: integers are exact until they overflow, and an
overflow is undefined unless the text defines it (see `integer_overflow`).
"""
from __future__ import annotations

from typing import Mapping

import ml_dtypes
import numpy as np

from opconform.model import RelationBroken

POLICY = "intermediate_precision"
WIDE = "wide"
INPUT_TYPE = "input_type"
STASH_TYPE = "stash_type"  # LayerNormalization / GroupNormalization: the narrow option is the stash type

INTEGER_OVERFLOW = "integer_overflow"  # the id of the oracle-side relation (on_violation: undefined)
# a float sum in the input type whose result depends on the order of the terms past the type's range
FLOAT_SUM_ORDER = "float_sum_order"


def is_float(x: np.ndarray) -> bool:
    """float16/32/64 and ml_dtypes' floats (bfloat16 ... are numpy 'V' kinds)."""
    x = np.asarray(x)
    return x.dtype.kind == "f" or (x.dtype.kind == "V" and "float" in x.dtype.name)


def narrow_policy(policies: Mapping[str, str]) -> bool:
    """True when the policy says: compute in the input (or stash) type, not float64."""
    return policies.get(POLICY, WIDE) != WIDE


def working(x: np.ndarray, policies: Mapping[str, str]) -> np.ndarray:
    """x in the type the policy computes floats in: float64 (wide) or its own type; integers and
    bool as they are."""
    x = np.asarray(x)
    if not is_float(x) or narrow_policy(policies):
        return x
    with np.errstate(invalid="ignore"):  # ml_dtypes flag a NaN they widen exactly
        return x.astype(np.float64)


def to_type(y, dtype) -> np.ndarray:
    """A result rounded to `dtype`; past its range it is inf, as the text means (no warning)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(y).astype(dtype)


def norm_axes(x: np.ndarray, axes) -> tuple[int, ...]:
    if axes is None:
        return tuple(range(x.ndim))
    if isinstance(axes, (int, np.integer)):
        return (int(axes) % max(x.ndim, 1),)
    return tuple(sorted(int(a) % max(x.ndim, 1) for a in axes))


def reduced_last(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """x with `axes` moved to the end and merged into one (row-major order of the reduced elements)."""
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, rest + list(axes))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))  # not -1: a 0-sized axis makes it ambiguous
    return moved.reshape(moved.shape[:len(rest)] + (count,))


def _c_order(x) -> np.ndarray:
    """x as a C-contiguous array of the same shape (np.ascontiguousarray makes a 0-d array 1-d)."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else x.copy(order="C")


def total(x: np.ndarray, axes=None, keepdims: bool = False) -> np.ndarray:
    """The sum over `axes` in x's own type, in NumPy's order: float64 gives the wide result; a
    narrower float is summed as NumPy sums it in that type (`np.add.reduce(..., dtype=x.dtype)`,
    what onnx.reference computes: pairwise along a contiguous run of reduced elements, one slice
    after the other across outer reduced axes; NumPy carries float16's pairwise partial sums in
    float32). Integers sum in their own type."""
    x = _c_order(x)  # NumPy's order follows the memory layout: the one a backend gets
    with np.errstate(all="ignore"):  # overflow to inf and inf - inf are the answers here
        return np.asarray(np.add.reduce(x, axis=norm_axes(x, axes), dtype=x.dtype, keepdims=keepdims), dtype=x.dtype)


def product(x: np.ndarray, axes=None, keepdims: bool = False) -> np.ndarray:
    """The product over `axes` in x's own type, in NumPy's order (as `total`)."""
    x = _c_order(x)
    with np.errstate(all="ignore"):
        return np.asarray(np.multiply.reduce(x, axis=norm_axes(x, axes), dtype=x.dtype, keepdims=keepdims), dtype=x.dtype)


def mean(x: np.ndarray, axes=None, keepdims: bool = False) -> np.ndarray:
    """sum / count in x's own type (an empty set: 0/0, NaN, without NumPy's warning)."""
    x = np.asarray(x)
    ax = norm_axes(x, axes)
    count = int(np.prod([x.shape[a] for a in ax], dtype=np.int64))
    with np.errstate(all="ignore"):
        return np.asarray(np.true_divide(total(x, ax, keepdims), count)).astype(x.dtype)


def standardize(x: np.ndarray, axes, epsilon: float, dtype, wide_means: bool, variance: str = "deviations"):
    """Stage one of the normalization operators, each equation rounded to `dtype`:
        Mean = ReduceMean(X); D = X - Mean
        variance "deviations" (LayerNormalization's text): Var = ReduceMean(D * D);
            InvStdDev = 1 / Sqrt(Var + epsilon); Normalized = D * InvStdDev
        variance "function_body" (the function bodies onnx ships for LayerNormalization and
            GroupNormalization): Var = ReduceMean(X * X) - Mean * Mean;
            StdDev = Sqrt(Var + epsilon); Normalized = D / StdDev; InvStdDev = 1 / StdDev
    The ReduceMean accumulate in float64 and round once to `dtype` (wide_means) or in `dtype`
    itself (NumPy's order). Returns (Normalized, Mean, InvStdDev) with the reduced axes kept."""
    ax = norm_axes(np.asarray(x), axes)

    def reduce_mean(v):
        if wide_means:
            with np.errstate(all="ignore", invalid="ignore"):
                return to_type(mean(v.astype(np.float64), ax, keepdims=True), dtype)
        return mean(v, ax, keepdims=True)

    with np.errstate(all="ignore"):
        xs = to_type(x, dtype)
        eps = np.asarray(epsilon).astype(dtype)
        mu = reduce_mean(xs)
        d = (xs - mu).astype(dtype)
        if variance == "function_body":
            var = (reduce_mean((xs * xs).astype(dtype)) - (mu * mu).astype(dtype)).astype(dtype)
            std = np.sqrt((var + eps).astype(dtype)).astype(dtype)
            return (d / std).astype(dtype), mu, np.reciprocal(std).astype(dtype)
        var = reduce_mean((d * d).astype(dtype))
        inv_std = np.reciprocal(np.sqrt((var + eps).astype(dtype))).astype(dtype)
        return (d * inv_std).astype(dtype), mu, inv_std


# ------------------------------------------------------------------ integer overflow
def integer_limits(dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def sum_leaves_range(x: np.ndarray, axes, dtype, term: str = "value") -> np.ndarray | None:
    """Where some summation order of the terms of the integers `x` over `axes` leaves the range of
    `dtype`: the positive terms alone or the negative ones alone add up past it (the exact
    condition for every order to stay in range). term: "value" (x), "square" (x*x), "abs" (|x|).
    Returns the mask of reduced positions (axes dropped), or None when every position is in range."""
    lo, hi = integer_limits(dtype)
    x = np.asarray(x)
    flat = reduced_last(x, norm_axes(x, axes))
    f = flat.astype(np.float64)
    f = f * f if term == "square" else np.abs(f) if term == "abs" else f
    est_pos = np.sum(np.where(f > 0, f, 0.0), axis=-1)
    est_neg = np.sum(np.where(f < 0, f, 0.0), axis=-1)
    # float64 decides every position except those within a hair of a bound, which go exact
    near = np.abs(est_pos - hi) <= 1e-9 * hi + 2
    if lo:
        near |= np.abs(est_neg - lo) <= 1e-9 * abs(lo) + 2
    bad = np.array((est_pos > hi) | (est_neg < lo))
    for i in np.argwhere(near):
        row = [int(v) for v in flat[tuple(i)]]
        terms = [v * v if term == "square" else abs(v) if term == "abs" else v for v in row]
        bad[tuple(i)] = sum(t for t in terms if t > 0) > hi or sum(t for t in terms if t < 0) < lo
    return bad if bad.any() else None


def product_leaves_range(x: np.ndarray, axes, dtype) -> np.ndarray | None:
    """Where some multiplication order of the integers `x` over `axes` leaves the range of
    `dtype`: the product of the magnitudes of the non-zero factors exceeds the type's maximum.
    A set with at most one factor other than 0, 1 and -1 keeps every partial product at that
    factor's magnitude, which is in range, unless it is the type's minimum and a -1 flips it."""
    lo, hi = integer_limits(dtype)
    flat = reduced_last(np.asarray(x), norm_axes(np.asarray(x), axes))
    mag = np.abs(flat.astype(np.float64))
    with np.errstate(over="ignore"):  # past float64's range is past every integer type's too: inf is the answer
        est = np.prod(np.where(mag == 0, 1.0, mag), axis=-1)
    lone = np.count_nonzero(mag > 1, axis=-1) <= 1
    if lo < 0:
        lone &= ~(np.any(flat == lo, axis=-1) & np.any(flat == -1, axis=-1))
    near = ~lone & (np.abs(est - hi) <= 1e-9 * hi + 2)
    bad = np.array(~lone & (est > hi))
    for i in np.argwhere(near):
        exact = 1
        for v in flat[tuple(i)]:
            exact *= abs(int(v)) or 1
        bad[tuple(i)] = exact > hi
    return bad if bad.any() else None


def refuse_overflow(spec_id: str, where: np.ndarray | None, what: str) -> None:
    """Raise the oracle-side relation `integer_overflow` (undefined) when `where` marks any position:
    oracle.expectation() then records the case as undefined, oracle.evaluate() raises it."""
    if where is not None and np.any(where):
        first = tuple(int(i) for i in np.argwhere(where)[0])
        raise RelationBroken(spec_id, INTEGER_OVERFLOW, "undefined",
                             f"{what} leaves the element type's range (output position {list(first)}); "
                             f"the text does not define integer overflow")


# ------------------------------------------------------------------ float sums past the range
def refuse_order_dependent_sum(spec_id: str, x: np.ndarray, axes, policies: Mapping[str, str], dtype=None) -> None:
    """Under input_type precision, a float sum whose positive terms alone (or negative ones alone)
    pass the type's largest value while terms of the other sign are present: one order of the
    terms gives inf, another -inf or NaN (inf - inf), another a finite value. The text fixes no
    order, so no one outcome is the spec's: the oracle-side relation `float_sum_order` (undefined).
    dtype: the type the sum is taken in, when x holds its terms wider (products in float64)."""
    dtype = np.asarray(x).dtype if dtype is None else np.dtype(dtype)
    if not narrow_policy(policies) or dtype.kind not in "fV" or not is_float(np.zeros((), dtype)):
        return
    x = np.asarray(x)
    top = float(ml_dtypes.finfo(dtype).max)
    with np.errstate(invalid="ignore", over="ignore"):  # ml_dtypes flag a NaN they widen exactly
        flat = reduced_last(x, norm_axes(x, axes)).astype(np.float64)
        pos = np.sum(np.where(flat > 0, flat, 0.0), axis=-1)
        neg = np.sum(np.where(flat < 0, flat, 0.0), axis=-1)
    mixed = np.any(flat > 0, axis=-1) & np.any(flat < 0, axis=-1)
    where = mixed & ((pos > top) | (neg < -top))
    if np.any(where):
        first = tuple(int(i) for i in np.argwhere(where)[0])
        raise RelationBroken(spec_id, FLOAT_SUM_ORDER, "undefined",
                             f"the sum at output position {list(first)} passes the type's range in some orders "
                             f"of its terms and not in others; the text fixes no order")


_PRODUCTS_CHECKED = 1 << 24  # past this many products the check is skipped (a stress-sized product)


def refuse_order_dependent_products(spec_id: str, a: np.ndarray, b: np.ndarray, policies: Mapping[str, str]) -> None:
    """refuse_order_dependent_sum for the sums of products of a matrix product a @ b (stacks
    broadcast, 1-D operands promoted as numpy.matmul does): where the products of one sign pass
    the type's range while products of the other sign are present, the outcome depends on the
    order of the sums and on whether a product is fused with its sum (an FMA gives inf where
    inf - inf is NaN), which the text does not fix."""
    a, b = np.asarray(a), np.asarray(b)
    if not narrow_policy(policies) or not is_float(a):
        return
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    bt = np.swapaxes(b2, -1, -2)
    shape = np.broadcast_shapes(a2.shape[:-2], bt.shape[:-2]) + (a2.shape[-2], bt.shape[-2], a2.shape[-1])
    if int(np.prod(shape, dtype=np.int64)) > _PRODUCTS_CHECKED:
        return
    with np.errstate(all="ignore"):
        terms = a2.astype(np.float64)[..., :, None, :] * bt.astype(np.float64)[..., None, :, :]
    refuse_order_dependent_sum(spec_id, terms, -1, policies, dtype=a.dtype)
