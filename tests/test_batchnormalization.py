"""BatchNormalization: one spec file and one oracle module, no generator hook. The oracle on
hand-computed values (inference and training mode, every version's mode switch), the open
choices it allows, and the generic generator on every version: valid draws are rarely
rejected, and every error relation gets must-refuse cases that break it first."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import hooks, sampling, strategies
from opconform.model import RelationBroken

VERSIONS = [1, 6, 7, 9, 14, 15]
f32 = np.float32


def _spec(since: int):
    return specs.load(f"onnx::BatchNormalization-{since}")


def _inputs(x, scale, bias, mean, var, dtype=f32):
    return [np.asarray(a, dtype) for a in (x, scale, bias, mean, var)]


# N=2, C=2, D=2. Channel 0 holds 1, 3, 1, 3 (mean 2, population variance 1, sample variance 4/3);
# channel 1 holds 0, 4, 4, 0 (mean 2, variance 4).
X = [[[1, 3], [0, 4]], [[1, 3], [4, 0]]]
SCALE, BIAS, IN_MEAN, IN_VAR = [2, 1], [1, 0], [0, 4], [3, 0]
Y_TRAIN = [[[-1, 3], [-1, 1]], [[-1, 3], [1, -1]]]


def test_inference_mode_uses_the_given_statistics():
    # Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B, per channel (axis 1)
    x, s, b, m, v = _inputs([[[1, 3], [0, 4]]], [2, 1], [0, 5], [2, 2], [1, 4])
    y = oracle.evaluate("onnx::BatchNormalization-15", [x, s, b, m, v], {"epsilon": 0.0})[0]
    np.testing.assert_array_equal(y, np.array([[[-2, 2], [4, 6]]], f32))
    # epsilon goes under the square root: var 0 + epsilon 0.25 -> divide by 0.5
    y = oracle.evaluate("onnx::BatchNormalization-15", _inputs([[3, 5]], [1, 1], [0, 0], [1, 1], [0, 0]),
                        {"epsilon": 0.25})[0]
    np.testing.assert_allclose(y, [[4, 8]], rtol=1e-6)


@pytest.mark.parametrize("since", [14, 15])
def test_training_mode_uses_the_batch_statistics_and_the_population_variance(since):
    y, rmean, rvar = oracle.evaluate(f"onnx::BatchNormalization-{since}", _inputs(X, SCALE, BIAS, IN_MEAN, IN_VAR),
                                     {"epsilon": 0.0, "momentum": 0.5, "training_mode": 1})
    np.testing.assert_array_equal(y, np.array(Y_TRAIN, f32))
    # running = input * momentum + current * (1 - momentum); var 1 (not 4/3) in channel 0
    np.testing.assert_array_equal(rmean, np.array([1, 3], f32))
    np.testing.assert_array_equal(rvar, np.array([2, 2], f32))


def test_training_statistics_are_over_every_axis_but_the_channel():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 2, 4, 5)).astype(np.float64)
    ins = [x, np.ones(2), np.zeros(2), np.zeros(2), np.ones(2)]
    y, rmean, rvar = oracle.evaluate("onnx::BatchNormalization-15", ins, {"momentum": 0.0, "training_mode": 1,
                                                                           "epsilon": 0.0})
    np.testing.assert_allclose(rmean, x.mean(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(rvar, x.var(axis=(0, 2, 3)), rtol=1e-12)
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, rtol=1e-12)


@pytest.mark.parametrize("since", [9, 14, 15])
def test_a_single_dimension_input_has_one_channel(since):
    # "The op also accepts single dimension input of size N in which case C is assumed to be 1"
    ins = _inputs([0, 2, 4], [1], [1], [2], [4])
    y = oracle.evaluate(f"onnx::BatchNormalization-{since}", ins, {"epsilon": 0.0})[0]
    np.testing.assert_array_equal(y, np.array([0, 1, 2], f32))
    with pytest.raises(RelationBroken) as e:
        oracle.evaluate(f"onnx::BatchNormalization-{since}", _inputs([0, 2, 4], [1, 1], [1], [2], [4]), {})
    assert e.value.relation == "scale_per_channel"


@pytest.mark.parametrize("since", [1, 6])
def test_is_test_picks_the_mode(since):
    spec = _spec(since)
    x = np.array(X, f32).reshape((2, 2, 1, 2) if since == 1 else (2, 2, 2))
    ins = [x] + _inputs([0], SCALE, BIAS, IN_MEAN, IN_VAR)[1:]
    attrs = {"epsilon": 0.0, "momentum": 0.5, **({"consumed_inputs": [0, 0, 0, 1, 1]} if since == 1 else {})}
    y, rmean, rvar, smean, svar = oracle.evaluate(spec, ins, attrs)  # is_test defaults to 0: training
    np.testing.assert_array_equal(y, np.array(Y_TRAIN, f32).reshape(x.shape))
    np.testing.assert_array_equal(rmean, np.array([1, 3], f32))
    np.testing.assert_array_equal(rvar, np.array([2, 2], f32))
    np.testing.assert_array_equal(smean, np.array([2, 2], f32))
    np.testing.assert_array_equal(svar, np.array([1, 4], f32))
    y_test = oracle.evaluate(spec, ins, {**attrs, "is_test": 1})[0]
    # channel 1 has input_var 0 and epsilon 0: division by zero, IEEE infinities and NaN
    np.testing.assert_allclose(y_test[:, 0], x[:, 0] / np.sqrt(3) * 2 + 1, rtol=1e-6)


def test_saved_var_is_the_variance_or_the_inverse_standard_deviation():
    ins = _inputs(X, SCALE, BIAS, IN_MEAN, IN_VAR)
    exp = oracle.expectation(_spec(9), ins, {"epsilon": 0.0})
    saved = {a.policies["saved_var"]: a.outputs[4] for a in exp.alternatives if a.policies["output_case"] == "training"}
    np.testing.assert_array_equal(saved["variance"], np.array([1, 4], f32))
    np.testing.assert_array_equal(saved["inverse_std"], np.array([1, 0.5], f32))


def test_versions_7_and_9_allow_both_modes_because_the_outputs_asked_pick_it():
    ins = _inputs(X, SCALE, BIAS, IN_MEAN, IN_VAR)
    for since in (7, 9):
        ys = {a.policies["output_case"]: a.outputs[0] for a in oracle.expectation(_spec(since), ins, {"epsilon": 0.0}).alternatives}
        np.testing.assert_array_equal(ys["training"], np.array(Y_TRAIN, f32))
        np.testing.assert_allclose(ys["test"][:, 0], (np.array(X, f32)[:, 0] / np.sqrt(3) * 2 + 1), rtol=1e-6)


def test_version_7_spatial_0_normalizes_per_activation():
    x = np.array([[[1, 3], [0, 4]], [[3, 5], [4, 0]]], f32)  # statistics per (c, d) over N only
    per = np.ones((2, 2), f32)
    y, rmean, rvar, smean, svar = oracle.evaluate(
        "onnx::BatchNormalization-7", [x, per, 0 * per, 0 * per, per], {"spatial": 0, "epsilon": 0.0, "momentum": 0.0},
        policies={"output_case": "training"})
    np.testing.assert_array_equal(smean, [[2, 4], [2, 2]])
    np.testing.assert_array_equal(svar, [[1, 1], [4, 4]])
    np.testing.assert_array_equal(y, [[[-1, -1], [-1, 1]], [[1, 1], [1, -1]]])
    with pytest.raises(RelationBroken) as e:
        oracle.evaluate("onnx::BatchNormalization-7", [x, np.ones(2, f32), np.zeros(2, f32), np.zeros(2, f32),
                                                       np.ones(2, f32)], {"spatial": 0})
    assert e.value.relation == "scale_shape"


def test_version_15_computes_float16_statistics_in_float():
    # a float16 channel of 4 x 30000: its float16 sum is inf, the float sum 120000
    x = np.full((4, 1), 30000, np.float16)
    ins = [x] + [np.asarray(a, np.float16) for a in ([1], [0.5], [0], [1])]
    attrs = {"training_mode": 1, "epsilon": 1.0, "momentum": 0.5}
    for a in oracle.expectation(_spec(15), ins, attrs).alternatives:
        np.testing.assert_array_equal(a.outputs[1], np.array([15000], np.float16))  # 0 * 0.5 + 30000 * 0.5
    # version 14 leaves the type open: a float16 sum (input_type) is an allowed outcome
    means = [a.outputs[1] for a in oracle.expectation(_spec(14), ins, attrs).alternatives]
    assert any(np.isinf(m.astype(np.float64)).all() for m in means)
    assert any(np.array_equal(m, np.array([15000], np.float16)) for m in means)
    # Y = (X - mean) / sqrt(var + epsilon) * scale + B = B; folded into X * a + (B - mean * a) in
    # float16, B - 30000 rounds to -30000 and Y to 0: an allowed outcome of the evaluation order
    ys = {a.policies["evaluation_order"]: a.outputs[0] for a in oracle.expectation(_spec(15), ins, attrs).alternatives}
    np.testing.assert_array_equal(ys["as_written"], np.full((4, 1), 0.5, np.float16))


def test_mixed_element_types_keep_each_output_in_its_own_type():
    x = np.array([[[1, 3], [0, 4]]], np.float16)
    ins = [x, np.array([2, 1], f32), np.array([0, 5], f32), np.array([2, 2], np.float64), np.array([1, 4], np.float64)]
    y, rmean, rvar = oracle.evaluate("onnx::BatchNormalization-15", ins, {"epsilon": 0.0, "training_mode": 1})
    assert (y.dtype, rmean.dtype, rvar.dtype) == (np.float16, np.float64, np.float64)


def test_an_empty_batch_is_undefined_only_in_training_mode():
    ins = _inputs(np.zeros((0, 2, 3)), [1, 1], [0, 0], [0, 0], [1, 1])
    assert oracle.expectation(_spec(15), ins, {"training_mode": 1}).relation == "batch_not_empty"
    y = oracle.evaluate("onnx::BatchNormalization-15", ins, {})[0]
    assert y.shape == (0, 2, 3) and y.dtype == f32


# ------------------------------------------------------------------ generator: no hook needed
@pytest.mark.parametrize("since", VERSIONS)
def test_no_hook_and_valid_draws_are_rarely_rejected(since):
    spec = _spec(since)
    assert hooks.module_for(spec) is None
    strategy = strategies.cases(spec, kind="valid", profile="ci")
    got = [sampling.draw_one(strategy, f"batchnorm:{spec.id}:{k}") for k in range(40)]
    assert sum(c is None for c in got) <= 4, "more than 10% of valid draws rejected"
    for c in got:
        if c is not None:
            assert specs.first_broken(spec, list(c.inputs), dict(c.attributes)) is None


@pytest.mark.parametrize("since", VERSIONS)
def test_must_refuse_cases_break_each_error_relation_first(since):
    spec = _spec(since)
    targets = strategies.error_relations(spec)
    written = {r.id for r in spec.relations if r.on_violation == "error" and r.check.startswith("shape(")}
    assert written <= set(targets) and len(written) == 4  # scale, B, mean, var of size C (or C x D1 .. Dn)
    cases = sampling.generate(spec, 2 * len(targets), 0, kind="invalid")
    broken = {c.label.split(";")[0][len("breaks:"):] for c in cases}
    assert written <= broken, written - broken
    for c in cases:
        target = c.label.split(";")[0][len("breaks:"):]
        failing = [s for s in specs.check_all(spec, list(c.inputs), dict(c.attributes)) if s.state in ("broken", "unevaluable")]
        assert failing and failing[0].id == target, (c.label, [s.id for s in failing])
        assert oracle.expectation(spec, list(c.inputs), dict(c.attributes)).kind == "error"
