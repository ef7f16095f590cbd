"""ONNX Dropout: in inference (test) mode a copy of data with every element kept; in training mode
random outputs (`compare: judged`): run() gives the shapes and types (every element kept, scaled by
1 / (1 - ratio)), judge() decides a backend's outputs by the text's exact property, output = mask *
data / (1 - ratio) element by element, and the share of kept elements by a two-sided binomial test
whose false-alarm rate is at most ALPHA per case."""
from __future__ import annotations

import numpy as np

from opconform import compare
from opconform.model import Tolerance
from opconform.oracle.kernels import random_stats

ALPHA = random_stats.ALPHA  # false-alarm rate of the binomial test, per case


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    training, ratio = _mode(spec, inputs, attributes, policies)
    y = _kept(x, _scale(inputs, ratio, policies)) if training else x.copy()
    # version 7's text gives the mask two types: Tensor<bool> in its description, T in its signature
    bool_mask = spec.since > 7 or policies.get("mask_type") == "bool"
    mask_type = np.bool_ if bool_mask else x.dtype
    return y, np.ones(x.shape, dtype=mask_type)


def judge(spec, inputs, attributes, policies, outputs) -> str:
    x = inputs[0]
    training, ratio = _mode(spec, inputs, attributes, policies)
    y, m = outputs.get("output"), outputs.get("mask")
    if m is not None and np.shape(m) != x.shape:
        return f"output mask: got shape {list(np.shape(m))}, expected {list(x.shape)}"
    if not training or ratio == 0.0:  # a copy, nothing dropped (1 / (1 - 0) = 1)
        found = None if y is None else compare.check(y, x, compare.Rules(Tolerance(), "distinct"))
        if found is not None:
            return found.about("output (a copy of data in inference mode)")
        # up to version 10 the text says nothing of the mask a copy gives ("If is_test is nonzero,
        # this output is not filled"); from 12 "it will contain all ones"
        if m is not None and spec.since >= 12 and not np.all(np.asarray(m, dtype=np.float64) == 1):
            return f"output mask: {int(np.sum(np.asarray(m, dtype=np.float64) != 1))} element(s) dropped, expected every one kept"
        return ""
    kept_value = _kept(x, _scale(inputs, ratio, policies))
    rules = compare.Rules.of(spec)
    if m is not None:
        mf = np.asarray(m, dtype=np.float64)
        if not np.all((mf == 0) | (mf == 1)):
            return "output mask: holds values other than kept (1 / true) and dropped (0 / false)"
        kept, known = mf == 1, np.ones(x.shape, dtype=bool)
    else:  # counted only where a dropped 0 cannot pass for the kept value, and data is no NaN (NaN * 0 is NaN)
        kept = ~compare.differing(y, kept_value, rules)
        known = compare.differing(np.zeros_like(kept_value), kept_value, rules) & ~np.isnan(np.asarray(x, dtype=np.float64))
    if y is not None:
        wrong = ~np.where(kept, ~compare.differing(y, kept_value, rules), _dropped(y, x))
        if wrong.any():
            at = tuple(int(i) for i in np.argwhere(wrong)[0])
            return (f"output at {list(at)}: got {y[at]!r}, expected mask * data / (1 - ratio) = "
                    f"{kept_value[at] if kept[at] else 0!r} ({int(wrong.sum())} of {wrong.size} elements differ)")
    return _binomial(int(kept[known].sum()), int(known.sum()), 1.0 - ratio)


def _mode(spec, inputs, attributes, policies) -> tuple[bool, float]:
    """(training, ratio) as the version states them."""
    if spec.since <= 6:
        return attributes.get("is_test", 0) == 0, float(attributes.get("ratio", 0.5))
    if spec.since <= 10:
        return policies.get("mode") == "training", float(attributes.get("ratio", 0.5))
    ratio = inputs[1] if len(inputs) > 1 else None
    training = inputs[2] if len(inputs) > 2 else None
    if ratio is not None:
        r = float(np.asarray(ratio, dtype=np.float64).reshape(-1)[0])
    else:
        r = 0.0 if policies.get("absent_ratio") == "copy" else 0.5
    return training is not None and bool(np.asarray(training).reshape(-1)[0]), r


def _scale(inputs, ratio: float, policies) -> float:
    """1 / (1 - ratio): in float64, or (scale_precision: ratio_type) in the ratio input's own type."""
    given = inputs[1] if len(inputs) > 1 else None
    if policies.get("scale_precision") != "ratio_type" or given is None:
        return 1.0 / (1.0 - ratio)
    one = np.ones((), dtype=np.asarray(given).dtype)
    with np.errstate(all="ignore"):
        return float(one / (one - np.asarray(given).reshape(-1)[0]))


def _kept(x: np.ndarray, scale: float) -> np.ndarray:
    """data * scale in data's type (one rounding of the float64 product)."""
    with np.errstate(all="ignore"):
        return (np.asarray(x, dtype=np.float64) * scale).astype(x.dtype)


def _dropped(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A dropped element is 0 (either sign); NaN too where data is not finite (scale * inf * 0)."""
    yf, xf = np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64)
    return (yf == 0) | (np.isnan(yf) & ~np.isfinite(xf))


def _binomial(k: int, n: int, p: float) -> str:
    """'' unless k kept of n is so far from n * p that a two-sided binomial test at ALPHA rejects it."""
    why = random_stats.binomial(k, n, p, ALPHA)
    return f"kept elements: {why} (keep probability 1 - ratio)" if why else ""
