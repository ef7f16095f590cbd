"""Conversions cross every source value class with every target type: the `values:<input>`
factor of an input an output converts (`converted_from`), constrained by the spec's own
relations, and the ci plan's valid cases hold every defined (source, class, target) triple."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import dtypes, specs
from opconform.generator import value_classes, values
from opconform.generator.factors import factors


def _target(c) -> str:
    if "to" in c.attributes:
        return dtypes.BY_ONNX[int(c.attributes["to"])].name
    return dtypes.name_of(c.inputs[1].dtype)


def _triples(spec_id: str) -> tuple[set, set, object]:
    """(defined triples with a float source, triples the valid ci cases hold, the plan)."""
    from opconform.suites import plan

    spec = specs.load(spec_id)
    fs = {f.name: f for f in factors(spec)}
    r = plan.cases_for(spec_id, "ci", 11)
    assert r.error is None and not r.infeasible
    held = set()
    for c in r.cases:
        if c.label.startswith("valid"):
            src = dtypes.name_of(c.inputs[0].dtype)
            held |= {(src, k, _target(c)) for k in value_classes.classes_held(c.inputs[0])}
    by_attr = "attr:to" in fs
    want = set()
    for src in fs["type:T1"].values:
        if not dtypes.get(src).is_float:
            continue
        for t in fs["attr:to"].values if by_attr else fs["type:T2"].values:
            dst = dtypes.BY_ONNX[int(t)].name if by_attr else t
            ctx = ({"to": t}, {}) if by_attr else ({}, {"target_type": dst})
            # the empty tensor is a class of its own case, held by no crossing: not a triple to hold
            want |= {(src, k, dst) for k in value_classes.allowed_members(spec, "input", src, *ctx)
                     if k != values.EMPTY_TENSOR}
    return want, held, r


@pytest.mark.parametrize("spec_id", ["onnx::Cast-21", "onnx::CastLike-21"])
def test_every_defined_float_class_reaches_every_target(spec_id):
    want, held, _ = _triples(spec_id)
    assert len(want) > 1000
    assert not want - held, sorted(want - held)[:10]


def test_cast_21_named_crossings_and_undefined_ones_kept_out():
    _, held, r = _triples("onnx::Cast-21")
    for triple in [("float32", "nan", "bool"), ("float64", "nan", "bool"), ("float16", "+inf", "bool"),
                   ("float64", "max", "float16"), ("float32", "-0.0", "int32"), ("float32", "subnormal", "uint8")]:
        assert triple in held, triple
    # NaN or inf to an integer is undefined (`float_to_int_in_range`): never in a valid case
    assert ("float32", "nan", "int32") not in held and ("float32", "+inf", "int32") not in held
    nan_to_bool = [c for c in r.cases if c.label.startswith("valid") and _target(c) == "bool"
                   and dtypes.get(dtypes.name_of(c.inputs[0].dtype)).is_float
                   and "nan" in value_classes.classes_held(c.inputs[0])]
    assert len(nan_to_bool) >= 4


def test_integer_sources_cross_too():
    spec = specs.load("onnx::Cast-21")
    assert "minus_one" in value_classes.allowed_members(spec, "input", "int32", {"to": 2}, {})  # -1 -> uint8
    assert "beyond_narrower" in value_classes.allowed_members(spec, "input", "int64", {"to": 6}, {})  # 2^31 -> int32
    assert "nan" not in value_classes.allowed_members(spec, "input", "float32", {"to": 6}, {})


def test_factor_comes_from_the_spec_marker_only():
    cast = {f.name: f for f in factors(specs.load("onnx::Cast-21"))}
    assert cast["values:input"].kind == "values" and cast["values:input"].values[0] == "zero"
    assert values.EMPTY_TENSOR not in cast["values:input"].values
    assert not any(f.kind == "values" for f in factors(specs.load("onnx::Abs-13")))


def test_float_edge_classes_include_zero_and_past_the_narrower_range():
    for name, narrower in (("float64", "float32"), ("float16", "float8e4m3fn"), ("bfloat16", "float8e4m3fn")):
        ev = values.edge_values(name)
        assert values.from_elements(name, list(ev["zero"]), (1,)).view(np.uint8).sum() == 0
        past = values.from_elements(name, list(ev["beyond_narrower"]), (len(ev["beyond_narrower"]),))
        top = float(__import__("ml_dtypes").finfo(dtypes.numpy_dtype(narrower)).max)
        assert (np.abs(past.astype(np.float64)) > top).all(), name


@st.composite
def _filled(draw, shape: tuple, allowed: dict) -> np.ndarray:
    return value_classes.fill(draw, "float32", shape, "nan", allowed)


def test_fill_holds_the_pin_and_every_allowed_class():
    spec = specs.load("onnx::Cast-21")
    allowed = value_classes.allowed_members(spec, "input", "float32", {"to": 9}, {})

    @settings(max_examples=20, derandomize=True, database=None)
    @given(st.data(), st.sampled_from([(), (1,), (2, 1), (0, 3)]))
    def check(data, shape):
        x = data.draw(_filled(shape, allowed))
        held = value_classes.classes_held(x)
        assert "nan" in held and set(allowed) - {values.EMPTY_TENSOR} <= held

    check()
