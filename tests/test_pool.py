"""Pooling operators (issue 15 item 1): MaxPool (with Indices and storage_order), AveragePool
and LpPool. The vectorized oracles (oracle/kernels/pool.py) are held against plain loops over
output positions written from the texts here (the output-shape formulas, ceil_mode dropping a
window that would start in the end padding, count_include_pad), on drawn geometries; the specs'
relations draw valid cases with few rejections, no hook."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken

def _geometry(rng, n_sp, auto_pad, ceil_mode):
    """(kernel, strides, dilations, spatial, begin, end, out) as the texts give them."""
    kernel = [int(v) for v in rng.integers(1, 4, n_sp)]
    strides = [int(v) for v in rng.integers(1, 4, n_sp)]
    dilations = [int(v) for v in rng.integers(1, 3, n_sp)]
    spatial = [int(rng.integers((k - 1) * d + 1, (k - 1) * d + 5)) for k, d in zip(kernel, dilations)]
    ext = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = [math.ceil(i / s) for i, s in zip(spatial, strides)]
        total = [max(0, (o - 1) * s + e - i) for o, s, e, i in zip(out, strides, ext, spatial)]
        small, big = [t // 2 for t in total], [t - t // 2 for t in total]
        begin, end = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        return kernel, strides, dilations, spatial, begin, end, out
    if auto_pad == "VALID":
        begin = end = [0] * n_sp
    else:
        begin = [int(rng.integers(0, k)) for k in kernel]  # within the kernel: no window of padding only
        end = [int(rng.integers(0, k)) for k in kernel]
    rnd = math.ceil if ceil_mode and auto_pad == "NOTSET" else math.floor
    out = [int(rnd((i + b + e - x) / s)) + 1 for i, b, e, x, s in zip(spatial, begin, end, ext, strides)]
    if ceil_mode and auto_pad == "NOTSET":
        out = [o - 1 if (o - 1) * s >= i + b else o for o, s, i, b in zip(out, strides, spatial, begin)]
    return kernel, strides, dilations, spatial, begin, end, out


def naive_pool(x, kind, kernel, strides, dilations, begin, end, out, count_include_pad=False, p=2, column_major=False):
    """Per output position: the window's input elements (and how many positions of the padded
    input it covers); max with its flat index, average, or Lp norm."""
    n_sp = x.ndim - 2
    y = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(x.shape[:2] + tuple(out), dtype=np.int64)
    plane = int(np.prod(x.shape[2:]))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(v) for v in out]):
            vals, where, covered = [], [], 0
            for k in itertools.product(*[range(v) for v in kernel]):
                pos = [o[a] * strides[a] - begin[a] + k[a] * dilations[a] for a in range(n_sp)]
                if all(-begin[a] <= pos[a] < x.shape[2 + a] + end[a] for a in range(n_sp)):
                    covered += 1
                if all(0 <= pos[a] < x.shape[2 + a] for a in range(n_sp)):
                    vals.append(float(x[(n, c, *pos)]))
                    if column_major:
                        flat = sum(pos[a] * int(np.prod(x.shape[2:2 + a])) for a in range(n_sp))
                    else:
                        flat = sum(pos[a] * int(np.prod(x.shape[3 + a:])) for a in range(n_sp))
                    where.append((n * x.shape[1] + c) * plane + flat)
            if kind == "max":
                best = int(np.argmax(vals))  # the first of equal maxima
                y[(n, c, *o)], idx[(n, c, *o)] = vals[best], where[best]
            elif kind == "avg":
                y[(n, c, *o)] = sum(vals) / (covered if count_include_pad else len(vals))
            else:
                y[(n, c, *o)] = sum(abs(v) ** p for v in vals) ** (1 / p)
    return y, idx


_MODES = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]


@pytest.mark.parametrize("seed", range(16))
def test_max_pool_values_and_indices_match_the_loop(seed):
    rng = np.random.default_rng(seed)
    n_sp, auto_pad, ceil_mode = 1 + seed % 3, _MODES[seed % 4], seed % 8 < 4
    kernel, strides, dilations, spatial, begin, end, out = _geometry(rng, n_sp, auto_pad, ceil_mode)
    x = rng.permutation(2 * 2 * int(np.prod(spatial))).reshape(2, 2, *spatial).astype(np.float32)  # distinct: one argmax
    attrs = {"kernel_shape": kernel, "strides": strides, "dilations": dilations, "auto_pad": auto_pad,
             "ceil_mode": int(ceil_mode), "storage_order": seed % 2}
    if auto_pad == "NOTSET":
        attrs["pads"] = begin + end
    y, indices = oracle.evaluate(specs.load("onnx::MaxPool-22"), [x], attrs)
    want, want_idx = naive_pool(x, "max", kernel, strides, dilations, begin, end, out, column_major=seed % 2 == 1)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(indices, want_idx)


@pytest.mark.parametrize("seed", range(16))
def test_average_and_lp_pool_match_the_loop(seed):
    rng = np.random.default_rng(50 + seed)
    n_sp, auto_pad, ceil_mode = 1 + seed % 3, _MODES[seed % 4], seed % 8 < 4
    kernel, strides, dilations, spatial, begin, end, out = _geometry(rng, n_sp, auto_pad, ceil_mode)
    x = rng.standard_normal((1, 2, *spatial))
    attrs = {"kernel_shape": kernel, "strides": strides, "dilations": dilations, "auto_pad": auto_pad,
             "ceil_mode": int(ceil_mode), "count_include_pad": seed % 2}
    if auto_pad == "NOTSET":
        attrs["pads"] = begin + end
    got = oracle.evaluate(specs.load("onnx::AveragePool-22"), [x], attrs)[0]
    want, _ = naive_pool(x, "avg", kernel, strides, dilations, begin, end, out, count_include_pad=seed % 2 == 1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    attrs.pop("count_include_pad")
    got = oracle.evaluate(specs.load("onnx::LpPool-22"), [x], {**attrs, "p": 3})[0]
    np.testing.assert_allclose(got, naive_pool(x, "lp", kernel, strides, dilations, begin, end, out, p=3)[0], rtol=1e-12)


def test_max_pool_nan_readings_and_ties():
    spec = specs.load("onnx::MaxPool-22")
    x = np.array([0, np.nan, np.inf, 2, 2], dtype=np.float32).reshape(1, 1, 5)
    a = {"kernel_shape": [2]}
    got = {nan: oracle.evaluate(spec, [x], a, {"nan": nan})[0].ravel().tolist() for nan in
           ("propagate", "ignored", "scan_forward", "scan_backward")}
    assert np.isnan(got["propagate"][:2]).all() and got["ignored"][:2] == [0.0, np.inf]
    assert got["scan_forward"][0] == 0.0 and np.isnan(got["scan_forward"][1])  # onnxruntime's loop
    assert np.isnan(got["scan_backward"][0]) and got["scan_backward"][1] == np.inf
    first = oracle.evaluate(spec, [x], a, {"ties": "first"})[1].ravel()[3]
    last = oracle.evaluate(spec, [x], a, {"ties": "last"})[1].ravel()[3]
    assert (first, last) == (3, 4)


def test_a_window_of_padding_only_is_undefined_where_padding_is_not_counted():
    x = np.ones((1, 1, 2), dtype=np.float32)
    attrs = {"kernel_shape": [1], "pads": [1, 0]}
    with pytest.raises(RelationBroken, match="window_in_padding"):
        oracle.evaluate(specs.load("onnx::MaxPool-22"), [x], attrs)
    counted = oracle.evaluate(specs.load("onnx::AveragePool-22"), [x], {**attrs, "count_include_pad": 1})[0]
    np.testing.assert_array_equal(counted.ravel(), [0, 1, 1])
