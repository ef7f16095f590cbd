"""ONNX BatchNormalization: Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel (axis 1),
with the given statistics (test / inference mode) or the batch's own (training mode), plus the
running statistics input * momentum + batch statistic * (1 - momentum) (and, versions 1 to 9, the
saved batch mean and variance).

The mode: versions 1 and 6 `is_test` (0: training), 14 and 15 `training_mode`, 7 and 9 the
outputs asked, which the oracle does not see (policy output_case). Outputs other than Y are
computed by their training formulas in every mode (erratum outputs_by_mode / output_case).
Policies (see the spec): intermediate_precision (oracle/kernels/precision.py; version 15's
float_stats computes the statistics in float32 or wider), evaluation_order (as_written,
scale_first, folded), saved_var (variance, inverse_std)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import precision


def run(spec, inputs, attributes, policies):
    x, scale, bias, mean, var = (np.asarray(v) for v in inputs)
    pol = policies.get(precision.POLICY, precision.WIDE)
    narrow = pol != precision.WIDE
    xs = x.reshape(x.shape + (1,)) if x.ndim == 1 else x  # rank 1: N, with C assumed to be 1
    per_activation = spec.since == 7 and attributes.get("spatial", 1) == 0  # statistics per (C, D1 .. Dn)
    axes = (0,) if per_activation else (0,) + tuple(range(2, xs.ndim))
    param = (1,) + tuple(mean.shape) if per_activation else (1, -1) + (1,) * (xs.ndim - 2)
    work = x.dtype if narrow else np.float64

    # batch statistics: the population variance, in the policy's precision
    training = _training(spec, attributes, policies)
    sums = _stats_type(pol, work) if pol in (precision.INPUT_TYPE, "float_stats") else np.float64
    if training and spec.since not in (7, 9) and np.dtype(sums) == x.dtype:
        # a mean summed in X's own type (a float64 X under every policy) whose terms pass its
        # range in some orders and not in others has no one outcome (float_sum_order,
        # undefined). Not in versions 7 and 9, whose training mode is only an allowed
        # alternative (policy output_case): refusing there would leave test-mode cases undefined
        precision.refuse_order_dependent_sum(spec.id, xs, axes, {precision.POLICY: precision.INPUT_TYPE})
    cur_mean, cur_var = _moments(xs, axes, work, pol)
    if training:
        m, v = cur_mean, cur_var
    else:
        m, v = (precision.to_type(t, work).reshape(param) for t in (mean, var))
    s, b = (precision.to_type(t, work).reshape(param) for t in (scale, bias))
    order = policies.get("evaluation_order", "as_written")
    y = precision.to_type(_normalize(precision.to_type(xs, work), m, v, s, b, attributes["epsilon"], work, order), x.dtype)

    # the running statistics, in the statistics' own type (U / T2)
    stat = mean.dtype
    swork = stat if narrow else np.float64
    momentum = float(attributes["momentum"])
    with np.errstate(all="ignore"):
        mom, rest = (precision.to_type(np.float64(k), swork) for k in (momentum, 1.0 - momentum))

        def running(given, current):
            g = precision.to_type(given, swork)
            c = precision.to_type(precision.to_type(current, work).reshape(mean.shape), swork)
            return precision.to_type((g * mom).astype(swork) + (c * rest).astype(swork), stat)

        outs = (y.reshape(x.shape), running(mean, cur_mean), running(var, cur_var))
        if spec.since >= 14:
            return outs
        saved_mean = precision.to_type(cur_mean, work).reshape(mean.shape)
        saved_var = precision.to_type(cur_var, work).reshape(mean.shape)
        if policies.get("saved_var", "variance") == "inverse_std":
            eps = precision.to_type(np.float64(attributes["epsilon"]), work)
            saved_var = np.reciprocal(np.sqrt((saved_var + eps).astype(work))).astype(work)
    return outs + (precision.to_type(saved_mean, x.dtype), precision.to_type(saved_var, x.dtype))


def _training(spec, attributes, policies) -> bool:
    if spec.since >= 14:
        return attributes.get("training_mode", 0) != 0
    if spec.since in (7, 9):
        return policies.get("output_case", "test") == "training"
    return attributes.get("is_test", 0) == 0


def _stats_type(pol, work):
    """The type the statistics are summed in under a narrow policy: version 15's float_stats
    widens float16 and bfloat16 to float32; input_type keeps X's type."""
    return np.float32 if pol == "float_stats" and np.dtype(work).itemsize < 4 else work


def _moments(x, axes, work, pol):
    """(mean, population variance) over `axes`, reduced axes kept, in `work`: wide (float64),
    input_type (every step and sum in X's type), accumulate_wide (steps in X's type, each mean
    summed in float64 and rounded once), float_stats (version 15: both computed in float32, or X's
    type when wider, then rounded to X's type)."""
    with np.errstate(all="ignore"):
        if pol == "float_stats":
            acc = _stats_type(pol, work)
            xa = precision.to_type(x, acc)
            mu = precision.mean(xa, axes, keepdims=True)
            d = (xa - mu).astype(acc)
            return precision.to_type(mu, work), precision.to_type(precision.mean((d * d).astype(acc), axes, keepdims=True), work)
        wide_sums = pol == "accumulate_wide"

        def reduce_mean(t):
            if wide_sums:
                return precision.to_type(precision.mean(t.astype(np.float64), axes, keepdims=True), work)
            return precision.mean(t, axes, keepdims=True)

        xw = precision.to_type(x, work)
        mu = reduce_mean(xw)
        d = (xw - mu).astype(work)
        return mu, reduce_mean((d * d).astype(work))


def _normalize(x, m, v, s, b, epsilon, work, order):
    """The text's formula in the policy's order, every operation rounded to `work`."""
    def r(t):
        return np.asarray(t).astype(work)

    with np.errstate(all="ignore"):
        std = r(np.sqrt(r(v + precision.to_type(np.float64(epsilon), work))))
        if order == "folded":
            a = r(s / std)
            return r(r(x * a) + r(b - r(m * a)))
        if order == "scale_first":
            return r(r(r(s * r(x - m)) / std) + b)
        return r(r(r(r(x - m) / std) * s) + b)
