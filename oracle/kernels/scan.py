"""Running reductions along one axis (CumSum, CumProd): inclusive or exclusive, forwards or
reversed, accumulated in a type the operator picks."""
from __future__ import annotations

from typing import Callable

import numpy as np

from opconform.oracle.kernels import precision
from opconform.oracle.kernels.indexing import axis_of


def shifted(v: np.ndarray, axis: int, identity: int) -> np.ndarray:
    """v moved one place along axis with `identity` first: the exclusive scan's terms (not the
    inclusive scan undone by subtracting or dividing, which inf and 0 would turn into NaN)."""
    first = np.full(v.shape[:axis] + (1,) + v.shape[axis + 1:], identity, dtype=v.dtype)
    return np.take(np.concatenate([first, v], axis=axis), np.arange(v.shape[axis]), axis=axis)


def running(x: np.ndarray, axis: int, *, exclusive: bool, reverse: bool, scan: Callable[..., np.ndarray],
            identity: int, acc, check: Callable[[np.ndarray], None] | None = None) -> np.ndarray:
    """scan (np.cumsum, np.cumprod) of x along axis in the type `acc`, rounded to x's type.
    check(terms): called with the terms in scan order (an integer overflow test) before the scan."""
    v = np.flip(x, axis) if reverse else x
    if exclusive:
        v = shifted(v, axis, identity)
    if check is not None:
        check(v)
    with np.errstate(all="ignore"):  # inf + -inf and inf * 0 are NaN, as the scan means
        y = precision.to_type(scan(precision.to_type(v, acc), axis=axis, dtype=acc), x.dtype)
    return np.flip(y, axis) if reverse else y


def scan_operator(scan: Callable[..., np.ndarray], identity: int,
                  refuse_overflow: Callable[[object, np.ndarray, int], None]) -> Callable:
    """run() of an ONNX scan operator (x, axis; attributes exclusive, reverse): floats accumulate
    in float64 (wide) or in x's type (policy intermediate_precision), integers in their own type
    after refuse_overflow(spec, terms, axis) has raised integer_overflow where they leave it."""

    def run(spec, inputs, attributes, policies):
        x = np.asarray(inputs[0])
        axis = axis_of(np.asarray(inputs[1]).reshape(-1)[0], x.ndim)
        integer = x.dtype.kind in "iu"
        acc = x.dtype if integer or precision.narrow_policy(policies) else np.float64
        return (running(x, axis, exclusive=bool(attributes["exclusive"]), reverse=bool(attributes["reverse"]),
                        scan=scan, identity=identity, acc=acc,
                        check=(lambda v: refuse_overflow(spec, v, axis)) if integer else None),)

    return run
