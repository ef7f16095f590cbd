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


def test_max_unpool_is_a_partial_inverse_of_max_pool():
    """"Pooling the result of an unpooling operation should give back the original input to the
    unpooling op": MaxPool's values and Indices through MaxUnpool, then MaxPool again."""
    rng = np.random.default_rng(3)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = rng.permutation(2 * 3 * 6 * 4).reshape(2, 3, 6, 4).astype(np.float32)
    y, idx = oracle.evaluate(specs.load("onnx::MaxPool-22"), [x], attrs)
    unpooled = oracle.evaluate(specs.load("onnx::MaxUnpool-22"), [y, idx, None], attrs)[0]
    assert unpooled.shape == x.shape
    np.testing.assert_array_equal(oracle.evaluate(specs.load("onnx::MaxPool-22"), [unpooled], attrs)[0], y)
    # a 6x5 input unpools to 6x4 unless output_shape says 6x5; its indices count 6x5 positions
    x = rng.permutation(2 * 3 * 6 * 5).reshape(2, 3, 6, 5).astype(np.float32)
    y, idx = oracle.evaluate(specs.load("onnx::MaxPool-22"), [x], attrs)
    expected = oracle.expectation(specs.load("onnx::MaxUnpool-22"), [y, idx, np.array([2, 3, 6, 5])], attrs)
    (only,) = expected.alternatives  # the inferred-shape reading refuses these indices
    assert only.policies["indices_over"] == "output_shape"
    np.testing.assert_array_equal(only.outputs[0].reshape(-1)[idx.reshape(-1)], y.reshape(-1))


def test_col2im_matches_the_fold_loop():
    rng = np.random.default_rng(4)
    image, block, strides, dilations, pads = (5, 4), (2, 3), (2, 1), (1, 1), (1, 0, 0, 1)
    out = [(i + pads[a] + pads[2 + a] - d * (k - 1) - 1) // s + 1
           for a, (i, k, s, d) in enumerate(zip(image, block, strides, dilations))]
    cols = rng.standard_normal((2, 3 * 6, out[0] * out[1]))
    got = oracle.evaluate(specs.load("onnx::Col2Im-18"), [cols, np.array(image), np.array(block)],
                          {"strides": list(strides), "dilations": list(dilations), "pads": list(pads)})[0]
    want = np.zeros((2, 3) + image)
    for n, c, k0, k1, l0, l1 in itertools.product(range(2), range(3), range(2), range(3), range(out[0]), range(out[1])):
        h, w = l0 * strides[0] - pads[0] + k0 * dilations[0], l1 * strides[1] - pads[1] + k1 * dilations[1]
        if 0 <= h < image[0] and 0 <= w < image[1]:
            want[n, c, h, w] += cols[n, c * 6 + k0 * 3 + k1, l0 * out[1] + l1]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_max_roi_pool_matches_the_bin_loop():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 6, 7))
    rois = np.array([[0, 0.5, 1, 5, 4], [1, 2, 0, 6.5, 5], [1, 3, 3, 3, 3]])
    scale, (ph, pw) = 0.75, (2, 3)  # exact in float32, as ONNX stores the attribute
    got = oracle.evaluate(specs.load("onnx::MaxRoiPool-22"), [x, rois], {"pooled_shape": [ph, pw], "spatial_scale": scale})[0]
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        sx, sy, ex, ey = (int(np.floor(v * scale + 0.5)) for v in (x1, y1, x2, y2))
        bh, bw = max(ey - sy + 1, 1) / ph, max(ex - sx + 1, 1) / pw
        for i, j in itertools.product(range(ph), range(pw)):
            h0, h1 = min(max(int(np.floor(i * bh)) + sy, 0), 6), min(max(int(np.ceil((i + 1) * bh)) + sy, 0), 6)
            w0, w1 = min(max(int(np.floor(j * bw)) + sx, 0), 7), min(max(int(np.ceil((j + 1) * bw)) + sx, 0), 7)
            want = x[int(b), :, h0:h1, w0:w1].max(axis=(1, 2)) if h1 > h0 and w1 > w0 else 0
            np.testing.assert_allclose(got[r, :, i, j], want)


def test_deform_conv_without_offsets_is_conv():
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((6, 2, 3, 2))
    attrs = {"pads": [1, 0, 1, 1], "strides": [2, 1], "dilations": [1, 2], "group": 2}
    y = oracle.evaluate(specs.load("onnx::Conv-22"), [x, w, None], attrs)[0]
    offset = np.zeros((2, 2 * 6 * 2) + y.shape[2:])
    mask = np.full((2, 2 * 6) + y.shape[2:], 0.5)
    got = oracle.evaluate(specs.load("onnx::DeformConv-22"), [x, w, offset, None, mask], {**attrs, "offset_group": 2})[0]
    np.testing.assert_allclose(got, 0.5 * y, rtol=1e-12, atol=1e-12)
    # an offset of exactly one pixel samples the neighbour: the same as shifting X
    shifted = np.zeros_like(x)
    shifted[:, :, :-1] = x[:, :, 1:]
    attrs["pads"] = [0, 0, 1, 1]  # no padding above: a tap there would sample row 0 where Conv reads padding
    y = oracle.evaluate(specs.load("onnx::Conv-22"), [shifted, w, None], attrs)[0]
    offset = np.zeros((2, 2 * 6 * 2) + y.shape[2:])
    offset[:, 0::2] = 1.0  # the H offset of every tap
    got = oracle.evaluate(specs.load("onnx::DeformConv-22"), [x, w, offset], {**attrs, "offset_group": 2})[0]
    np.testing.assert_allclose(got, y, rtol=1e-12, atol=1e-12)
