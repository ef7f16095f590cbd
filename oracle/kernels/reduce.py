"""The ONNX Reduce* operators as one kernel: element-wise step, reduction, final step.

Every Reduce* operator is `post(combine(pre(x)))` over the chosen axes, which is also
what the text asks of `noop_with_empty_axes`: "composite-reduction operators will still
perform the non-reduction steps", so an empty axis set skips only `combine`.

Floats are reduced in float64 and rounded once to the input type (policy `accumulation`:
float64), or computed throughout in the input type (`input_type`), which is where overflowing
intermediates (a square of 1e38 in float32) differ; the spec's tolerance covers the rest of
the difference between the two and other summation orders.
Integers are reduced in their own type (wrapping like two's complement hardware does),
except where the result is not an integer (mean, L2, logs), which goes through float64
and comes back by the `integer_rounding` policy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion

_ROUND = {"truncate": np.trunc, "floor": np.floor, "nearest": np.rint}


@dataclass(frozen=True)
class Reduction:
    """`post(combine(pre(x)))`; `fractional`: the result of integers need not be an integer."""

    combine: str  # "sum" | "prod" | "max" | "min" | "mean"
    pre: Callable[[np.ndarray], np.ndarray] = lambda x: x
    post: Callable[[np.ndarray], np.ndarray] = lambda x: x
    fractional: bool = False


SUM = Reduction("sum")
SUM_SQUARE = Reduction("sum", pre=np.square)
L1 = Reduction("sum", pre=np.abs)
L2 = Reduction("sum", pre=np.square, post=np.sqrt, fractional=True)
PROD = Reduction("prod")
MAX = Reduction("max")
MIN = Reduction("min")
MEAN = Reduction("mean", fractional=True)
LOG_SUM = Reduction("sum", post=np.log, fractional=True)
LOG_SUM_EXP = Reduction("logsumexp", fractional=True)


def axes_of(spec: SpecVersion, inputs: Sequence, attributes: Mapping) -> tuple[int, ...] | None:
    """Normalized axes to reduce over; None for "all axes"; () for none at all (no-op)."""
    x = inputs[0]
    if any(p.name == "axes" for p in spec.inputs):
        given = inputs[1] if len(inputs) > 1 else None
        axes = () if given is None else tuple(int(a) for a in np.asarray(given).reshape(-1))
        if not axes:
            return () if attributes.get("noop_with_empty_axes", 0) else None
    else:
        given = attributes.get("axes")
        if given is None:
            return None
        axes = tuple(int(a) for a in given)
    return tuple(sorted(a % x.ndim for a in axes))


def run(reduction: Reduction, spec: SpecVersion, inputs: Sequence, attributes: Mapping,
        policies: Mapping[str, str]) -> tuple[np.ndarray]:
    x = np.asarray(inputs[0])
    axes = axes_of(spec, inputs, attributes)
    keepdims = bool(attributes.get("keepdims", 1))
    kind = dtypes.name_of(x.dtype)
    in_type = policies.get("accumulation") == "input_type" and dtypes.get(kind).is_float
    with np.errstate(all="ignore"):
        y = reduction.pre(x if in_type else _working_array(x, kind, reduction))
        if axes != ():
            y = _combine(reduction.combine, y, axes, keepdims, kind, policies.get("nan_handling", "propagate"))
        y = reduction.post(y)
        return (_back_to(y, x.dtype, kind, policies.get("integer_rounding", "truncate")),)


def _working_array(x: np.ndarray, kind: str, reduction: Reduction) -> np.ndarray:
    if kind == "bool":
        return x
    if dtypes.get(kind).is_float or reduction.fractional:
        return x.astype(np.float64)
    return x  # integers wrap in their own type, as the hardware does


def _combine(how: str, y: np.ndarray, axes, keepdims: bool, kind: str, nan_handling: str) -> np.ndarray:
    if how == "sum":
        return np.sum(y, axis=axes, keepdims=keepdims, dtype=y.dtype)
    if how == "prod":
        return np.prod(y, axis=axes, keepdims=keepdims, dtype=y.dtype)
    if how == "mean":
        return np.mean(y, axis=axes, keepdims=keepdims, dtype=y.dtype)
    if how == "logsumexp":
        if y.dtype != np.float64:  # in the input type: the formula as written, exp overflow and all
            return np.log(np.sum(np.exp(y), axis=axes, keepdims=keepdims, dtype=y.dtype))
        return _logsumexp(y, axes, keepdims)
    ufunc = np.maximum if how == "max" else np.minimum
    if nan_handling == "ignore" and y.dtype.kind == "f":
        nan = np.isnan(y)
        out = ufunc.reduce(np.where(nan, _extreme(how, y.dtype), y), axis=axes, keepdims=keepdims,
                           initial=_extreme(how, y.dtype))
        # like numpy's nanmax: a set of NaN only still gives NaN
        only_nan = np.all(nan, axis=axes, keepdims=keepdims) & np.any(nan, axis=axes, keepdims=keepdims)
        return np.where(only_nan, np.nan, out)
    return ufunc.reduce(y, axis=axes, keepdims=keepdims, initial=_extreme(how, y.dtype))


def _extreme(how: str, dtype: np.dtype):
    """The identity of max (the least value) or min (the greatest): the empty-set result."""
    if dtype == np.bool_:
        return how != "max"
    if dtype.kind == "f":
        return -np.inf if how == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if how == "max" else info.max


def _logsumexp(y: np.ndarray, axes, keepdims: bool) -> np.ndarray:
    """log(sum(exp(y))) shifted by the maximum, so large inputs do not overflow exp."""
    m = np.max(y, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(m), m, 0.0)
    s = np.log(np.sum(np.exp(y - shift), axis=axes, keepdims=True)) + shift
    return s if keepdims else np.squeeze(s, axis=axes)


def _back_to(y: np.ndarray, dtype: np.dtype, kind: str, rounding: str) -> np.ndarray:
    y = np.asarray(y)
    if kind in ("bool",) or y.dtype == dtype:
        return y.astype(dtype)
    if dtypes.get(kind).kind in ("int", "uint"):
        return _ROUND[rounding](y).astype(dtype)
    return y.astype(dtype)
