"""The Reduce* specs and oracles beyond the official node cases (which test only the newest
version of each): the axes-attribute versions agree with the axes-input versions, the text's
empty-set values and no-op rule hold, and the open choices show up as alternatives."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from opconform import oracle, specs
from opconform.model import RelationBroken

REDUCTIONS = ["ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]

# Independent formulas (plain NumPy calls per operator), over all of the given axes.
FORMULAS = {
    "ReduceMax": lambda x, ax, kd: np.max(x, axis=ax, keepdims=kd),
    "ReduceMin": lambda x, ax, kd: np.min(x, axis=ax, keepdims=kd),
    "ReduceSum": lambda x, ax, kd: np.sum(x, axis=ax, keepdims=kd),
    "ReduceMean": lambda x, ax, kd: np.mean(x, axis=ax, keepdims=kd),
    "ReduceProd": lambda x, ax, kd: np.prod(x, axis=ax, keepdims=kd),
    "ReduceL1": lambda x, ax, kd: np.sum(np.abs(x), axis=ax, keepdims=kd),
    "ReduceL2": lambda x, ax, kd: np.sqrt(np.sum(x * x, axis=ax, keepdims=kd)),
    "ReduceLogSum": lambda x, ax, kd: np.log(np.sum(x, axis=ax, keepdims=kd)),
    "ReduceLogSumExp": lambda x, ax, kd: np.log(np.sum(np.exp(x), axis=ax, keepdims=kd)),
    "ReduceSumSquare": lambda x, ax, kd: np.sum(x * x, axis=ax, keepdims=kd),
}


def _versions(op):
    return specs.load_spec("onnx", op).versions


def _call(spec, x, axes, keepdims, noop=None):
    """Run one version with `axes` given the way that version takes them."""
    attrs = {"keepdims": keepdims}
    if any(p.name == "axes" for p in spec.inputs):
        ins = [x, None if axes is None else np.asarray(axes, dtype=np.int64)]
        if noop is not None:
            attrs["noop_with_empty_axes"] = noop
    else:
        ins = [x]
        if axes is not None:
            attrs["axes"] = list(axes)
    return oracle.evaluate(spec, ins, attrs)[0]


@st.composite
def _data_and_axes(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    x = np.asarray(draw(st.lists(st.floats(0.25, 4.0), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    axes = draw(st.none() | st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                                     unique_by=lambda a: a % len(shape)))
    return x.reshape(shape).astype(np.float32), axes, draw(st.sampled_from([0, 1]))


@pytest.mark.parametrize("op", REDUCTIONS)
@given(case=_data_and_axes())
def test_every_version_matches_the_formula(op, case):
    x, axes, keepdims = case
    want = FORMULAS[op](x.astype(np.float64), None if axes is None else tuple(axes), bool(keepdims))
    for spec in _versions(op):
        got = _call(spec, x, axes, keepdims)
        assert got.dtype == np.float32 and got.shape == want.shape, spec.id
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=spec.id)


@pytest.mark.parametrize("op", REDUCTIONS)
def test_noop_with_empty_axes_keeps_the_elementwise_steps(op):
    x = np.array([[0.5, 2.0], [3.0, 4.0]], dtype=np.float32)
    # the text: "ReduceLogSum returns the Log of input tensor, and ReduceSumSquare returns the Square"
    per_element = {"ReduceL1": np.abs(x), "ReduceL2": np.abs(x), "ReduceLogSum": np.log(x),
                   "ReduceLogSumExp": x, "ReduceSumSquare": np.square(x)}.get(op, x)
    for spec in _versions(op):
        if not any(p.name == "axes" for p in spec.inputs):
            continue
        for axes in (None, []):
            got = _call(spec, x, axes, 1, noop=1)
            np.testing.assert_allclose(got, per_element, rtol=1e-6, err_msg=spec.id)


@pytest.mark.parametrize("op,dtype,value", [
    ("ReduceSum", np.float32, 0.0), ("ReduceProd", np.int32, 1), ("ReduceSumSquare", np.float64, 0.0),
    ("ReduceL1", np.int64, 0), ("ReduceL2", np.float32, 0.0), ("ReduceMax", np.float32, -np.inf),
    ("ReduceMax", np.int8, -128), ("ReduceMin", np.uint32, 2**32 - 1), ("ReduceMin", np.float16, np.inf),
    ("ReduceLogSum", np.float32, -np.inf), ("ReduceLogSumExp", np.float64, -np.inf),
])
def test_empty_set_yields_the_stated_value(op, dtype, value):
    x = np.zeros((2, 0, 3), dtype=dtype)
    for spec in _versions(op):
        if np.dtype(dtype).name not in [np.dtype(t).name for t in _numpy_types(spec)]:
            continue
        got = _call(spec, x, [1], 0)
        assert got.shape == (2, 3) and got.dtype == dtype
        assert np.all(got == np.asarray(value, dtype=dtype)), spec.id


def _numpy_types(spec):
    from opconform import dtypes

    return [dtypes.numpy_dtype(t) for t in spec.inputs[0].types]


def test_bool_max_and_min_take_false_below_true():
    x = np.array([[True, False], [False, False]])
    for op, want in (("ReduceMax", [True, False]), ("ReduceMin", [False, False])):
        spec = specs.load(f"onnx::{op}-20")
        got = _call(spec, x, [1], 0)
        assert got.dtype == np.bool_ and got.tolist() == want
        assert _call(spec, np.zeros((0,), bool), None, 0).tolist() == (op == "ReduceMin")


def test_axis_out_of_range_is_an_error_in_every_version():
    x = np.ones((2, 3), np.float32)
    for op in REDUCTIONS:
        for spec in _versions(op):
            with pytest.raises(RelationBroken) as e:
                _call(spec, x, [2], 1)
            assert e.value.relation == "axes_in_range" and e.value.on_violation == "error"


def test_mean_of_an_empty_set_is_undefined():
    spec = specs.load("onnx::ReduceMean-18")
    exp = oracle.expectation(spec, [np.zeros((0, 2), np.float32), np.array([0])], {})
    assert exp.kind == "undefined" and exp.relation == "nonempty_reduction"


def test_nan_in_max_gives_two_alternatives():
    spec = specs.load("onnx::ReduceMax-20")
    exp = oracle.expectation(spec, [np.array([1.0, np.nan, 3.0], np.float32), np.array([0])], {"keepdims": 0})
    outs = sorted(float(a.outputs[0]) if not np.isnan(a.outputs[0]) else -1.0 for a in exp.alternatives)
    assert outs == [-1.0, 3.0]


def test_integer_mean_rounding_is_a_policy():
    spec = specs.load("onnx::ReduceMean-18")
    exp = oracle.expectation(spec, [np.array([-3, -4], np.int32), None], {"keepdims": 0})
    assert sorted(int(a.outputs[0]) for a in exp.alternatives) == [-4, -3]


@pytest.mark.parametrize("op", REDUCTIONS)
def test_every_admitted_element_type(op):
    """Small positive integers (exact in every admitted type, float8 included): every version
    and type reduces them to the formula's value, in the input's type."""
    from opconform import dtypes

    base = np.array([[1, 2, 3], [2, 1, 1]], dtype=np.float64)
    want = FORMULAS[op](base, (1,), False)
    for spec in _versions(op):
        for name in spec.inputs[0].types:
            x = base.astype(dtypes.numpy_dtype(name))
            got = _call(spec, x, [1], 0)
            assert got.dtype == x.dtype, (spec.id, name)
            # bool (Max/Min only): every element is True, so the reduction is True
            expected = np.asarray(np.ones_like(want) if name == "bool" else want)
            if dtypes.get(name).kind in ("int", "uint"):
                expected = np.trunc(expected)
            np.testing.assert_allclose(got.astype(np.float64), expected.astype(x.dtype).astype(np.float64),
                                       rtol=1e-2, err_msg=f"{spec.id} {name}")
