"""Quantization operators (issue 15 item 4): QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear and QLinearMatMul. Their relations alone (no hook) draw valid cases with few
rejections and a must-refuse case for every error relation; the oracles follow the texts'
formulas (per tensor, per axis, blocked; ties to even; saturation; float8's saturate)."""
from __future__ import annotations

from collections import Counter

import ml_dtypes
import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import hooks, sampling, strategies

QUANTIZATION = [s.id for pat in ("onnx::QuantizeLinear*", "onnx::DequantizeLinear*", "onnx::DynamicQuantizeLinear*",
                                 "onnx::QLinearMatMul*") for s in specs.select(pat)]


def test_every_version_the_installed_onnx_defines_has_a_spec():
    import onnx.defs

    for op in ("QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearMatMul"):
        defined = {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain == ""}
        have = {int(sid.rsplit("-", 1)[1]) for sid in QUANTIZATION if sid.split("::")[1].rsplit("-", 1)[0] == op}
        assert defined <= have, (op, sorted(defined - have))


@pytest.mark.slow
@pytest.mark.parametrize("sid", QUANTIZATION)
def test_valid_draws_are_rarely_rejected_without_a_hook(sid):
    """Free draws and the ci profile's pairwise rows (t=2), each draft counted once."""
    spec = specs.load(sid)
    assert hooks.module_for(spec) is None
    for t in (0, 2):
        reasons: list[str] = []
        share = sampling.rejection_rate(spec, "ci", 40, t=t, log=reasons)
        assert share < 0.10, (t, share, Counter(reasons).most_common(3))


@pytest.mark.slow
@pytest.mark.parametrize("sid", QUANTIZATION)
def test_every_error_relation_gets_a_must_refuse_case(sid):
    spec = specs.load(sid)
    targets = strategies.error_relations(spec)
    cases = sampling.generate(spec, len(targets), 0, kind="invalid", profile="ci")
    broken = {c.label.split(";")[0][len("breaks:"):] for c in cases}
    assert set(targets) <= broken, sorted(set(targets) - broken)
    for c in cases:
        first = next(s for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state == "broken")
        assert c.label.startswith(f"breaks:{first.id}")


def _one(sid, inputs, attributes=None, policies=None):
    return oracle.evaluate(sid, inputs, attributes or {}, policies)[0]


def test_blocked_dequantization_repeats_each_scale_over_its_block():
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (2, 5, 3)).astype(np.int8)
    scale = rng.uniform(0.5, 2, (2, 3, 3)).astype(np.float32)  # ceil(5 / 2) = 3 blocks along axis 1
    zp = rng.integers(-4, 5, (2, 3, 3)).astype(np.int8)
    y = _one("onnx::DequantizeLinear-21", [x, scale, zp], {"axis": 1, "block_size": 2})
    i, j, k = np.indices(x.shape)
    want = (x.astype(np.float64) - zp[i, j // 2, k]) * scale[i, j // 2, k]
    np.testing.assert_allclose(y, want.astype(np.float32), rtol=1e-6)


def test_per_axis_quantization_takes_one_scale_per_element_of_the_axis():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    scale = np.array([1, 2, 4], np.float32)
    y = _one("onnx::QuantizeLinear-13", [x, scale], {"axis": 0})
    assert y.dtype == np.uint8  # no zero point: uint8
    np.testing.assert_array_equal(y, np.round(x / scale[:, None]).astype(np.uint8))


@pytest.mark.parametrize("to", ["int8", "uint8", "int16", "uint16", "int4", "uint4", "int2", "uint2"])
def test_quotients_round_half_to_even_and_saturate_to_the_type(to):
    info = ml_dtypes.iinfo(to)
    halves = np.arange(-6, 6, dtype=np.float32) + 0.5
    x = np.concatenate([halves, np.array([1e9, -1e9, np.inf, -np.inf], np.float32)])
    zp = np.zeros((), dtype=getattr(ml_dtypes, to, None) or np.dtype(to))
    y = _one("onnx::QuantizeLinear-25", [x, np.ones((), np.float32), zp]).astype(np.int64)
    inside = (halves >= info.min) & (halves <= info.max)
    assert np.all(y[:12][inside] % 2 == 0)  # a tie goes to the even neighbour
    assert np.all(np.abs(y[:12][inside] - halves[inside]) == 0.5)
    assert list(y[12:]) == [info.max, info.min, info.max, info.min]


def test_float8_saturates_unless_saturate_is_zero():
    x = np.array([1e6, -1e6, np.nan], np.float32)
    one = np.ones((), np.float32)
    for name, unsaturated in (("float8_e4m3fn", np.nan), ("float8_e5m2", np.inf)):
        zp = np.zeros((), getattr(ml_dtypes, name))
        top = float(ml_dtypes.finfo(getattr(ml_dtypes, name)).max)
        y = _one("onnx::QuantizeLinear-19", [x, one, zp], {"saturate": 1}).astype(np.float64)
        assert y[0] == top and y[1] == -top and np.isnan(y[2])
        y = _one("onnx::QuantizeLinear-19", [x, one, zp], {"saturate": 0}).astype(np.float64)
        np.testing.assert_array_equal(y[:2], [unsaturated, -unsaturated if unsaturated == np.inf else np.nan])


def test_quantize_then_dequantize_is_within_half_a_step():
    rng = np.random.default_rng(1)
    x = rng.uniform(-50, 50, (4, 6)).astype(np.float32)
    scale, zp = np.float32(0.5), np.int8(3)
    q = _one("onnx::QuantizeLinear-21", [x, np.asarray(scale), np.asarray(zp)])
    back = _one("onnx::DequantizeLinear-21", [q, np.asarray(scale), np.asarray(zp)])
    assert np.all(np.abs(back - x) <= scale / 2)


def test_qlinearmatmul_is_the_requantized_product_of_the_dequantized_operands():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 256, (3, 4)).astype(np.uint8)
    b = rng.integers(-128, 128, (4, 5)).astype(np.int8)
    a_s, b_s = rng.uniform(0.01, 0.1, 3).astype(np.float32), rng.uniform(0.01, 0.1, 5).astype(np.float32)
    a_zp, b_zp = rng.integers(0, 256, 3).astype(np.uint8), rng.integers(-8, 8, 5).astype(np.int8)
    y_s, y_zp = np.asarray(np.float32(0.05)), np.asarray(np.uint8(128))
    got = _one("onnx::QLinearMatMul-10", [a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp])
    real = _one("onnx::DequantizeLinear-13", [a.T.copy(), a_s, a_zp], {"axis": 1}).T.astype(np.float64) @ \
        _one("onnx::DequantizeLinear-13", [b, b_s, b_zp], {"axis": 1}).astype(np.float64)
    want = np.clip(np.round(real / 0.05) + 128, 0, 255)
    assert np.all(np.abs(got.astype(np.int64) - want) <= 1)  # dequantizing in float32 may move a near-tie


def test_dynamic_quantization_covers_the_range_with_zero():
    x = np.array([-3.0, -1.0, 0.5, 6.0], np.float32)
    y, scale, zp = oracle.evaluate("onnx::DynamicQuantizeLinear-11", [x], {})
    assert scale == np.float32(9.0 / 255) and zp == 85  # -min / scale = 3 / (9 / 255)
    assert y[0] == 0 and y[-1] == 255
    np.testing.assert_allclose((y.astype(np.float64) - zp) * scale, x, atol=float(scale) / 2 + 1e-6)
    zeros = oracle.expectation(specs.load("onnx::DynamicQuantizeLinear-11"), [np.array([0, 1e-45], np.float32)], {})
    assert zeros.kind == "undefined"  # y_scale underflows to 0: 0 / 0
