"""oracle/kernels/elementwise.py: erf against the standard library, float32 attribute values,
float64 evaluation rounded once, and the open choices of the element-wise specs."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle.kernels import elementwise


def test_erf_matches_math_erf():
    x = np.concatenate([np.linspace(-7.0, 7.0, 4001), [2.9999999, 3.0, 3.0000001, 1e-300, -1e-300, 30.0, -30.0]])
    want = np.array([math.erf(v) for v in x])  # independent: libm's erf, element by element
    got = elementwise.erf(x)
    assert np.max(np.abs(got - want)) < 1e-12


def test_erf_special_values():
    got = elementwise.erf(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0]))
    assert np.isnan(got[0]) and got[1] == 1.0 and got[2] == -1.0
    assert got[3] == 0.0 and not np.signbit(got[3]) and np.signbit(got[4])


def test_float_attributes_are_float32():
    # ONNX stores float attributes as float32: LeakyRelu with alpha=0.1 multiplies by float32(0.1)
    x = np.array([-1.0], dtype=np.float64)
    (y,) = oracle.evaluate("onnx::LeakyRelu-16", [x], {"alpha": 0.1})
    assert y[0] == -float(np.float32(0.1)) and y[0] != -0.1


def test_low_precision_floats_are_rounded_once():
    x = np.array([0.3, 1.7, -2.2], dtype=ml_dtypes.bfloat16)
    (y,) = oracle.evaluate("onnx::Exp-13", [x], {})
    assert y.dtype == x.dtype
    want = np.exp(x.astype(np.float64)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(y.astype(np.float64), want.astype(np.float64))


def test_variadic_inputs_arrive_flat():
    a, b, c = np.array([1.0, 5.0], np.float32), np.array([3.0], np.float32), np.array([[2.0], [9.0]], np.float32)
    (y,) = oracle.evaluate("onnx::Max-13", [a, b, c], {})
    assert y.tolist() == [[3.0, 5.0], [9.0, 9.0]]
    (s,) = oracle.evaluate("onnx::Sum-13", [a], {})
    assert s.tolist() == [1.0, 5.0]


@pytest.mark.parametrize("spec_id, inputs, policy_values", [
    ("onnx::Max-13", [np.array([np.nan, 1.0], np.float32), np.array([2.0, 2.0], np.float32)], {"propagate", "ignore"}),
    ("onnx::Relu-14", [np.array([np.nan], np.float32)], {"propagate", "zero"}),
    ("onnx::HardSigmoid-22", [np.array([np.nan], np.float32)], {"propagate", "clamp"}),
])
def test_nan_choices_give_distinct_alternatives(spec_id, inputs, policy_values):
    e = oracle.expectation(specs.load(spec_id), inputs, {})
    assert e.kind == "outputs" and {a.policies["nan"] for a in e.alternatives} == policy_values


def test_integer_division_truncates_and_edge_cases_are_undefined():
    div = specs.load("onnx::Div-14")
    (q,) = oracle.evaluate(div, [np.array([-7, 7, -7, 7], np.int32), np.array([2, 2, -2, -2], np.int32)], {})
    assert q.tolist() == [-3, 3, 3, -3]  # toward zero, as the text says
    assert oracle.expectation(div, [np.array([1], np.int32), np.array([0], np.int32)], {}).relation == "integer_divisor_nonzero"
    minus = [np.array([-(2**31)], np.int32), np.array([-1], np.int32)]
    assert oracle.expectation(div, minus, {}).relation == "quotient_representable"


def test_bitshift_28_signed_semantics():
    spec = specs.load("onnx::BitShift-28")
    x, y = np.array([-8, -8, 8, 64], np.int8), np.array([1, 9, 9, 1], np.int8)
    assert oracle.evaluate(spec, [x, y], {"direction": "RIGHT"})[0].tolist() == [-4, -1, 0, 32]
    assert oracle.evaluate(spec, [x, y], {"direction": "LEFT"})[0].tolist() == [-16, 0, 0, -128]
