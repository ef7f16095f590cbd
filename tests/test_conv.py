"""Convolution operators (issue 15 item 1): Conv, ConvTranspose, ConvInteger, QLinearConv.

The vectorized oracles (oracle/kernels/conv.py: sliding windows and one product per group) are
held against plain loops over output positions written from the texts here, on drawn geometries
(1-D to 3-D, every auto_pad, pads, strides, dilations, group, output_padding, output_shape);
the specs' relations alone (no hook) draw valid cases with few rejections and a must-refuse case
for the error relations the generic breakers reach."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import hooks, sampling, strategies
from opconform.model import RelationBroken

CONVS = [s.id for pat in ("onnx::Conv-*", "onnx::ConvTranspose-*", "onnx::ConvInteger-*", "onnx::QLinearConv-*")
         for s in specs.select(pat)]
POOLS = [s.id for pat in ("onnx::MaxPool-*", "onnx::AveragePool-*", "onnx::LpPool-*", "onnx::MaxUnpool-*", "onnx::Col2Im-*",
                          "onnx::MaxRoiPool-*", "onnx::DeformConv-*") for s in specs.select(pat)]


def test_every_version_the_installed_onnx_defines_has_a_spec():
    import onnx.defs

    for op in ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "MaxUnpool",
               "Col2Im", "MaxRoiPool", "DeformConv"):
        versions = sorted(s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == "")
        # in force at some opset from 13 (specs import-onnx's default): the one at 13 and every later one
        defined = {max(v for v in versions if v <= 13)} | {v for v in versions if v > 13} if min(versions) <= 13 else set(versions)
        have = {int(sid.rsplit("-", 1)[1]) for sid in CONVS + POOLS if sid.split("::")[1].rsplit("-", 1)[0] == op}
        assert defined <= have, (op, sorted(defined - have))


def _same_pads(spatial, kernel, strides, dilations, upper):
    out = [math.ceil(i / s) for i, s in zip(spatial, strides)]
    total = [max(0, (o - 1) * s + (k - 1) * d + 1 - i) for o, s, k, d, i in zip(out, strides, kernel, dilations, spatial)]
    small = [t // 2 for t in total]
    big = [t - t // 2 for t in total]
    return (small, big) if upper else (big, small)


def naive_conv(x, w, b, strides, dilations, begin, end, group):
    """Y[n, m, o] = B[m] + sum over c in m's group and k of X[n, c, o*s - begin + k*d] * W[m, c, k]."""
    n_sp = x.ndim - 2
    out = [(i + bb + e - ((k - 1) * d + 1)) // s + 1
           for i, bb, e, k, d, s in zip(x.shape[2:], begin, end, w.shape[2:], dilations, strides)]
    M, cg = w.shape[0], w.shape[1]
    y = np.zeros((x.shape[0], M, *out))
    for n, m in itertools.product(range(x.shape[0]), range(M)):
        g = m // (M // group)
        for o in itertools.product(*[range(v) for v in out]):
            acc = 0.0 if b is None else float(b[m])
            for c in range(cg):
                for k in itertools.product(*[range(v) for v in w.shape[2:]]):
                    pos = [o[a] * strides[a] - begin[a] + k[a] * dilations[a] for a in range(n_sp)]
                    if all(0 <= p < x.shape[2 + a] for a, p in enumerate(pos)):
                        acc += float(x[(n, g * cg + c, *pos)]) * float(w[(m, c, *k)])
            y[(n, m, *o)] = acc
    return y


def _geometry(rng, n_sp):
    kernel = [int(v) for v in rng.integers(1, 4, n_sp)]
    strides = [int(v) for v in rng.integers(1, 4, n_sp)]
    dilations = [int(v) for v in rng.integers(1, 3, n_sp)]
    spatial = [int(rng.integers((k - 1) * d + 1, (k - 1) * d + 4)) for k, d in zip(kernel, dilations)]
    return kernel, strides, dilations, spatial


@pytest.mark.parametrize("seed", range(12))
def test_conv_matches_the_loop_over_output_positions(seed):
    rng = np.random.default_rng(seed)
    n_sp = 1 + seed % 3
    kernel, strides, dilations, spatial = _geometry(rng, n_sp)
    group = int(rng.integers(1, 3))
    cg, mg = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((2, cg * group, *spatial))
    w = rng.standard_normal((mg * group, cg, *kernel))
    b = rng.standard_normal(mg * group) if seed % 2 else None
    auto_pad = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"][seed % 4]
    attrs = {"strides": strides, "dilations": dilations, "group": group, "auto_pad": auto_pad}
    if auto_pad == "NOTSET":
        pads = [int(v) for v in rng.integers(0, 3, 2 * n_sp)]
        attrs["pads"] = pads
        begin, end = pads[:n_sp], pads[n_sp:]
    elif auto_pad == "VALID":
        begin = end = [0] * n_sp
    else:
        begin, end = _same_pads(spatial, kernel, strides, dilations, auto_pad == "SAME_UPPER")
    got = oracle.evaluate(specs.load("onnx::Conv-22"), [x, w, b], attrs)[0]
    want = naive_conv(x, w, b, strides, dilations, begin, end, group)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        assert got.shape[2:] == tuple(math.ceil(i / s) for i, s in zip(spatial, strides))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def naive_conv_transpose(x, w, strides, dilations, begin, out, group):
    """The full scatter of every input element's products, then output positions begin .. begin + out."""
    n_sp = x.ndim - 2
    full = [s * (i - 1) + (k - 1) * d + 1 for s, i, k, d in zip(strides, x.shape[2:], w.shape[2:], dilations)]
    cg, mg = x.shape[1] // group, w.shape[1]
    acc = np.zeros((x.shape[0], mg * group, *full))
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        g = c // cg
        for i in itertools.product(*[range(v) for v in x.shape[2:]]):
            for m in range(mg):
                for k in itertools.product(*[range(v) for v in w.shape[2:]]):
                    pos = tuple(i[a] * strides[a] + k[a] * dilations[a] for a in range(n_sp))
                    acc[(n, g * mg + m, *pos)] += float(x[(n, c, *i)]) * float(w[(c, m, *k)])
    y = np.zeros((x.shape[0], mg * group, *out))
    for o in itertools.product(*[range(v) for v in out]):
        src = tuple(o[a] + begin[a] for a in range(n_sp))
        if all(0 <= p < f for p, f in zip(src, full)):
            y[(slice(None), slice(None), *o)] = acc[(slice(None), slice(None), *src)]
    return y


@pytest.mark.parametrize("seed", range(12))
def test_conv_transpose_matches_the_scatter_loop(seed):
    rng = np.random.default_rng(100 + seed)
    n_sp = 1 + seed % 3
    kernel = [int(v) for v in rng.integers(1, 4, n_sp)]
    strides = [int(v) for v in rng.integers(1, 4, n_sp)]
    dilations = [int(v) for v in rng.integers(1, 3, n_sp)]
    spatial = [int(v) for v in rng.integers(1, 4, n_sp)]
    group = int(rng.integers(1, 3))
    x = rng.standard_normal((1, 2 * group, *spatial))
    w = rng.standard_normal((2 * group, 2, *kernel))
    extra = [int(rng.integers(0, max(s, d))) for s, d in zip(strides, dilations)]
    full = [s * (i - 1) + a + (k - 1) * d + 1 for s, i, a, k, d in zip(strides, spatial, extra, kernel, dilations)]
    attrs = {"strides": strides, "dilations": dilations, "group": group, "output_padding": extra}
    mode = ["pads", "output_shape", "SAME_UPPER", "SAME_LOWER", "VALID"][seed % 5]
    if mode == "pads":
        pads = [int(rng.integers(0, max(1, f // 2))) for f in full] * 2
        attrs["pads"] = pads
        begin, out = pads[:n_sp], [f - 2 * p for f, p in zip(full, pads[:n_sp])]
    elif mode == "output_shape":
        out = [int(rng.integers(1, f + 2)) for f in full]  # one past the full result included
        attrs["output_shape"] = out
        begin = [(f - o) - (f - o) // 2 for f, o in zip(full, out)]
    elif mode == "VALID":
        attrs["auto_pad"] = "VALID"
        begin, out = [0] * n_sp, full
    else:
        attrs["auto_pad"] = mode
        out = [i * s for i, s in zip(spatial, strides)]
        total = [f - o for f, o in zip(full, out)]
        begin = [t // 2 if mode == "SAME_UPPER" else t - t // 2 for t in total]
    got = oracle.evaluate(specs.load("onnx::ConvTranspose-22"), [x, w, None], attrs)[0]
    np.testing.assert_allclose(got, naive_conv_transpose(x, w, strides, dilations, begin, out, group), rtol=1e-12, atol=1e-12)


def test_conv_integer_subtracts_zero_points_per_output_channel():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, (1, 2, 4, 4)).astype(np.uint8)
    w = rng.integers(-128, 128, (3, 2, 2, 2)).astype(np.int8)
    xz, wz = np.uint8(128), np.array([1, -2, 3], dtype=np.int8)
    got = oracle.evaluate(specs.load("onnx::ConvInteger-10"), [x, w, xz, wz], {"pads": [1, 1, 1, 1]})[0]
    want = naive_conv(x.astype(np.int64) - 128, w.astype(np.int64) - wz.astype(np.int64)[:, None, None, None], None,
                      [1, 1], [1, 1], [1, 1], [1, 1], 1)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want.astype(np.int64))


def test_qlinear_conv_requantizes_half_to_even_and_saturates():
    x = np.array([[[[1, 3, 5, 200]]]], dtype=np.uint8)
    w = np.array([[[[1]]]], dtype=np.uint8)
    one, zero = np.float32(1), np.uint8(0)
    spec = specs.load("onnx::QLinearConv-10")
    # y = round(x / 2): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2 (ties to even), 100; a bias of 300 saturates at 255
    got = oracle.evaluate(spec, [x, one, zero, w, one, zero, np.float32(2), zero, None], {})[0]
    np.testing.assert_array_equal(got, [[[[0, 2, 2, 100]]]])
    got = oracle.evaluate(spec, [x, one, zero, w, one, zero, np.float32(2), zero, np.array([300], np.int32)], {})[0]
    np.testing.assert_array_equal(got, [[[[150, 152, 152, 250]]]])


def test_conv_integer_accumulation_past_int32_is_undefined():
    x = np.full((1, 200, 1, 1), 255, np.uint8)
    w = np.full((1, 200, 1, 1), -128, np.int8)
    spec = specs.load("onnx::ConvInteger-10")
    assert oracle.evaluate(spec, [x, w, None, None], {})[0].item() == 255 * -128 * 200
    big = np.full((1, 70000, 1, 1), 255, np.uint8)
    with pytest.raises(RelationBroken, match="integer_overflow"):
        oracle.evaluate(spec, [big, np.full((1, 70000, 1, 1), 127, np.int8), None, None], {})


@pytest.mark.parametrize("sid", CONVS + POOLS)
def test_valid_draws_are_mostly_kept_without_a_hook(sid):
    spec = specs.load(sid)
    assert hooks.module_for(spec) is None
    reasons: list[str] = []
    share = sampling.rejection_rate(spec, "ci", 30, log=reasons)
    assert share <= 0.35, (share, Counter(reasons).most_common(3))


@pytest.mark.parametrize("sid", ["onnx::Conv-22", "onnx::ConvTranspose-22", "onnx::QLinearConv-10"])
def test_error_relations_get_must_refuse_cases_that_break_them_first(sid):
    spec = specs.load(sid)
    targets = strategies.error_relations(spec)
    cases = sampling.generate(spec, len(targets), 0, kind="invalid", profile="ci")
    broken = {c.label.split(";")[0][len("breaks:"):] for c in cases}
    for must in ("filter_rank", "channels_divisible", "filter_channels", "pads_length", "pads_not_negative", "strides_positive"):
        assert must in broken, (must, sorted(broken))
    for c in cases:
        first = next(s for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state == "broken")
        assert c.label.startswith(f"breaks:{first.id}")
