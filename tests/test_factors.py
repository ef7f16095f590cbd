"""Factors and constraints derived from the specs alone (generator/factors.py)."""
from __future__ import annotations

import pytest

from opconform import specs
from opconform.generator.covering import covering_array
from opconform.generator.factors import (
    ABOVE_MIN, NEGATIVE, NON_DEFAULT, NON_NEGATIVE, OMITTED, Class, Factor, constraints, factors, representable,
)

ALL = specs.all_versions()


def by_name(spec_id: str) -> dict[str, Factor]:
    return {f.name: f for f in factors(specs.load(spec_id))}


def test_every_spec_version_derives_factors_and_constraints():
    assert len(ALL) > 250  # the whole library, not a sample
    for v in ALL:
        fs = factors(v)
        names = [f.name for f in fs]
        assert len(set(names)) == len(names), v.id
        for f in fs:
            assert len(f.values) >= 2, (v.id, f)
            assert len({(type(x), repr(x)) for x in f.values}) == len(f.values), (v.id, f)
            if f.kind == "type":
                ports = [p for p in v.inputs if (p.type_var or p.name) == f.target]
                assert ports and set(f.values) <= set(ports[0].types), (v.id, f)
            elif f.kind == "attribute":
                a = v.attribute(f.target)
                concrete = [x for x in f.values if not isinstance(x, Class)]
                if a.allowed is not None:
                    assert set(concrete) <= set(a.allowed), (v.id, f)
                assert (OMITTED in f.values) == (not a.required), (v.id, f)
            elif f.kind == "outputs":
                assert all(len(x) == len(v.outputs) and any(x) for x in f.values), (v.id, f)
                required = [i for i, p in enumerate(v.outputs) if not p.optional]
                assert all(x[i] for x in f.values for i in required), (v.id, f)
        cs = constraints(v)
        assert set(cs.scope) <= set(names), v.id
        # every 2-wise row keeps the constraints (the covering array's own tests check coverage)
        assert all(cs(row) for row in covering_array(fs, 2, allowed=cs, scope=cs.scope)), v.id


def test_factors_are_the_same_on_every_call():
    v = specs.load("onnx::Unique-11")
    assert factors(v) == factors(specs.load_file(specs.load_spec("onnx", "Unique").path).version(11))


def test_unique_11_by_hand():
    fs = by_name("onnx::Unique-11")
    assert list(fs) == ["type:T", "attr:axis", "attr:sorted", "outputs"]
    assert fs["type:T"].values == ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "string", "bool", "complex64", "complex128")
    assert fs["attr:sorted"].values == (0, 1, OMITTED)
    # no fixed range: the axis is relative to the rank, as classes; it may be omitted (flattened input)
    assert fs["attr:axis"].values == (NEGATIVE, NON_NEGATIVE, OMITTED)
    outputs = fs["outputs"].values
    assert len(outputs) == 8 and len(set(outputs)) == 8  # every subset of the 3 optional outputs
    assert all(x[0] for x in outputs)  # Y is always asked
    assert (True, False, False, False) in outputs and (True, True, True, True) in outputs
    assert not constraints(specs.load("onnx::Unique-11")).items  # its one relation needs the rank


def test_cast_21_to_takes_every_allowed_type():
    v = specs.load("onnx::Cast-21")
    fs = by_name("onnx::Cast-21")
    to = fs["attr:to"]
    assert to.values == v.attribute("to").allowed  # required: no OMITTED
    assert sorted(v.outputs[0].type_map[x] for x in to.values) == sorted(v.outputs[0].types)
    assert len(to.values) == 20
    assert fs["type:T1"].values == representable(v.inputs[0].types) and len(fs["type:T1"].values) == 20
    assert fs["attr:saturate"].values == (0, 1, OMITTED)


def test_layer_normalization_17_optional_input_outputs_and_float_attribute():
    fs = by_name("onnx::LayerNormalization-17")
    assert fs["input:B"].values == (True, False)
    assert fs["input:B"].kind == "presence" and fs["input:B"].target == "B"
    assert fs["outputs"].values == ((True, True, True), (True, True, False), (True, False, True), (True, False, False))
    assert fs["attr:epsilon"].values == (1e-05, NON_DEFAULT, OMITTED)  # the default, another value, unset
    assert fs["attr:stash_type"].values == (1, 16, OMITTED)
    assert fs["attr:axis"].values == (NEGATIVE, NON_NEGATIVE, OMITTED)  # range written with rank(X)
    assert fs["type:T"].values == ("float16", "float32", "float64", "bfloat16")
    assert "type:U" not in fs  # U types outputs only: the operator decides it, not the case


@pytest.mark.parametrize("spec_id, attribute, values", [
    ("onnx::Concat-13", "axis", (NEGATIVE, NON_NEGATIVE)),  # required: never omitted
    ("onnx::Gemm-13", "transA", (0, 1, OMITTED)),  # read as a truth value: a flag
    ("onnx::BlackmanWindow-17", "periodic", (0, 1, OMITTED)),  # `periodic in (0, 1)` drops -1
    ("onnx::GlobalLpPool-2", "p", (1, 2, OMITTED)),  # `p >= 1` drops -1 and 0
    ("onnx::GatherND-13", "batch_dims", (0, ABOVE_MIN, OMITTED)),  # range [0, inf): bound and above
    ("onnx::EyeLike-9", "k", (-1, 0, 1, OMITTED)),  # a plain int: sign classes
])
def test_attribute_values_follow_the_declarations(spec_id, attribute, values):
    assert by_name(spec_id)[f"attr:{attribute}"].values == values


def test_a_type_that_excludes_an_attribute_value():
    cs = constraints(specs.load("onnx::Mod-13"))
    assert [c.id for c in cs.items] == ["float_needs_fmod"]
    assert cs.scope == ("type:T", "attr:fmod")
    assert not cs({"type:T": "float32", "attr:fmod": 0})
    assert not cs({"type:T": "float16", "attr:fmod": OMITTED})  # omitted means the default, 0
    assert cs({"type:T": "float32", "attr:fmod": 1})
    assert cs({"type:T": "int32", "attr:fmod": 0})
    assert cs({"type:T": "float32"})  # partial: not judged until every factor it reads is set
    assert cs.broken({"type:T": "float64", "attr:fmod": 0}) == ["float_needs_fmod"]


def test_constraints_between_attributes_and_presence():
    split = constraints(specs.load("onnx::Split-18"))
    assert [c.id for c in split.items] == ["split_or_num_outputs"]
    # exactly one of the input `split` and the attribute `num_outputs`; a class still counts as present
    assert split({"input:split": True, "attr:num_outputs": OMITTED})
    assert split({"input:split": False, "attr:num_outputs": ABOVE_MIN})
    assert not split({"input:split": True, "attr:num_outputs": 1})
    assert not split({"input:split": False, "attr:num_outputs": OMITTED})
    rev = constraints(specs.load("onnx::ReverseSequence-10"))
    assert not rev({"attr:batch_axis": 0, "attr:time_axis": 0})
    assert not rev({"attr:batch_axis": OMITTED, "attr:time_axis": 1})  # batch_axis defaults to 1
    assert rev({"attr:batch_axis": OMITTED, "attr:time_axis": OMITTED})


def test_classes_and_value_relations_are_left_to_draw_time():
    # `alpha == floor(alpha)` for integer types: a class of alpha cannot be judged, the default can
    gemm = specs.load("onnx::Gemm-13")
    assert not constraints(gemm).items  # never broken by any factor value: dropped
    cast = constraints(specs.load("onnx::Cast-21"))
    # every Cast relation reads the input's values: none is a constraint of its own; they are
    # judged only through the value-class factor's probe (generator/value_classes.py)
    assert [c.id for c in cast.items] == ["values:input_defined"]


def test_covering_rows_of_a_constrained_spec():
    v = specs.load("onnx::Mod-13")
    fs, cs = factors(v), constraints(v)
    rows = covering_array(fs, 2, allowed=cs, scope=cs.scope, seed=3)
    assert rows and all(cs(r) for r in rows)
    pairs = {(r["type:T"], r["attr:fmod"]) for r in rows}
    floats = [t for t in fs[0].values if t.startswith(("float", "bfloat"))]
    assert all((t, 1) in pairs and (t, 0) not in pairs and (t, OMITTED) not in pairs for t in floats)
    assert {("int32", 0), ("int32", 1), ("int32", OMITTED)} <= pairs


def test_deriving_constraints_leaves_the_relations_untouched():
    # expr.parse caches its trees; rewriting dtype()/present() must work on a copy
    from opconform.specs import expr

    v = specs.load("onnx::Split-18")
    before = {r.id: (expr.names(r.check), r.when and expr.names(r.when)) for r in v.relations}
    constraints(v)
    factors(v)
    assert {r.id: (expr.names(r.check), r.when and expr.names(r.when)) for r in v.relations} == before
    assert specs.check_all(v, [None], {}) is not None  # the relations still evaluate
