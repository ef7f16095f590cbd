"""Softmax family and the likelihood losses, with the open choices of issue 14:
intermediate precision (policy intermediate_precision, see precision.py) and the mean over a zero
total weight (policy zero_total_weight)."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from opconform.oracle.kernels import precision

ZERO_WEIGHT_POLICY = "zero_total_weight"


def log_softmax(x: np.ndarray, axis: int, policies: Mapping[str, str]) -> np.ndarray:
    """log(exp(x) / sum(exp(x))) along axis, shifted by the max so large inputs stay finite; in
    float64 (wide) or with every step rounded to x's type and the sum accumulated in it."""
    w = precision.working(x, policies)
    t = w.dtype
    # inf - inf: NaN, the answer for a row holding inf; -max - max overflowing to -inf has the
    # softmax share 0 (log: -inf), the answer too
    with np.errstate(all="ignore"):
        shift = np.max(w, axis=axis, keepdims=True) if w.size else np.zeros((), dtype=t)
        z = (w - shift).astype(t)
        total = precision.total(np.exp(z).astype(t), axis, keepdims=True)
        return (z - np.log(total).astype(t)).astype(t)


def nll_loss(log_prob: np.ndarray, target: np.ndarray, weight, ignore_index, reduction: str,
             policies: Mapping[str, str], out_dtype) -> np.ndarray:
    """Negative log likelihood: -log_prob[n, target[n, ...], ...] * weight[target], zero where
    target == ignore_index; 'mean' divides by the sum of the applied weights.

    In float64 (wide) or in the element type (input_type: each product, the sums and the division
    rounded to it; a float32 sum past 3.4e38 is inf). A zero total weight under 'mean' (every
    weight applied is 0, or they cancel): the division as IEEE defines it (policy
    zero_total_weight: divide; 0/0 is NaN, x/0 is +-inf) or an output of 0 (zero), as an
    implementation that guards the division returns."""
    t = np.asarray(target).astype(np.int64)
    ignored = t == ignore_index if ignore_index is not None else np.zeros(t.shape, dtype=bool)
    safe = np.where(ignored, 0, t)
    lp = precision.working(np.asarray(log_prob), policies)
    typ = lp.dtype
    if lp.shape[1] == 0:  # no class (C = 0): every target is ignored, there is nothing to pick
        lp = np.zeros(lp.shape[:1] + (1,) + lp.shape[2:], dtype=typ)
        weight = None if weight is None else np.zeros(1, dtype=np.asarray(weight).dtype)
    picked = np.take_along_axis(lp, safe[:, None], axis=1)[:, 0]
    w = np.ones(t.shape, dtype=typ) if weight is None else precision.working(np.asarray(weight), policies).astype(typ)[safe]
    w = np.where(ignored, 0, w).astype(typ)
    with np.errstate(all="ignore"):
        # An ignored element's loss is 0, not -picked * 0: picked stands in for it (class 0) and
        # may be NaN or inf, and NaN * 0 is NaN (onnx.reference and onnxruntime give 0 there).
        loss = np.where(ignored, 0, (-picked * w).astype(typ)).astype(typ)
        if reduction == "none":
            return precision.to_type(loss, out_dtype)
        total = precision.total(loss)
        if reduction == "sum":
            return precision.to_type(total, out_dtype)
        weight_sum = precision.total(w)
        if weight_sum == 0 and policies.get(ZERO_WEIGHT_POLICY, "divide") == "zero":
            return precision.to_type(np.zeros((), dtype=typ), out_dtype)
        return precision.to_type(np.asarray(total / weight_sum).astype(typ), out_dtype)
