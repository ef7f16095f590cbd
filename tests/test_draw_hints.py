"""What a spec says about how to draw, not what is valid (issue 12): an input's value range
(`values: {typical: [lo, hi], step}`), a tensor attribute's declaration (`tensor: {type, shape}`)
and a variadic output's arity. The operators that needed hooks for them (Tile, the window
operators, OneHot, ConstantOfShape, Range, Split's output count) draw from the spec alone."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from opconform import oracle, specs
from opconform.generator import case_variants, generate, hooks, onnx_model, sampling, strategies
from opconform.model import Case, Expectation

@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_values_are_drawn_within_the_ports_range(data):
    tile = data.draw(strategies.cases(specs.load("onnx::Tile-13"), kind="valid", profile="ci"))
    assert tile.inputs[1].size == tile.inputs[0].ndim and set(tile.inputs[1].tolist()) <= {0, 1, 2, 3}
    # quarters: exact in every float type, so Range's element count is exact. A shape-[1] input
    # is valid (policy scalar_inputs, option one_element) and its value is its one element
    rng = data.draw(strategies.cases(specs.load("onnx::Range-11"), kind="valid", profile="ci"))
    assert all(x.size == 1 and x.ndim <= 1 for x in rng.inputs)
    start, limit, delta = (float(x.reshape(-1)[0]) for x in rng.inputs)
    assert -8 <= start <= 8 and -8 <= limit <= 8 and 0 < abs(delta) <= 3
    assert all((4 * v).is_integer() for v in (start, limit, delta))


@settings(max_examples=30, deadline=None, database=None)
@given(st.data())
def test_a_range_written_with_another_input_is_drawn_after_it(data):
    """OneHot's indices around [-depth - 2, depth + 1]: drawn once depth is (it comes later in the
    port list). The solver may still give an empty depth its one element afterwards (a new value
    in [0, 4]), so the indices are checked against the widest depth."""
    case = data.draw(strategies.cases(specs.load("onnx::OneHot-11"), kind="valid", profile="ci"))
    indices, depth, values = case.inputs
    assert values.shape == (2,) and depth.size == 1 and 0 <= float(depth.reshape(-1)[0]) <= 4
    if indices.size and indices.dtype.kind == "i":
        assert indices.min() >= -4 - 2 and indices.max() <= 4 + 1


def test_value_variants_draw_a_ranged_input_again_within_its_range():
    """A fed depth or window size is varied like any other input (it was frozen as a constant
    so that variants could not ask for 2**63 classes), and stays in its range."""
    for sid, i, lo, hi in [("onnx::OneHot-11", 1, 0, 4), ("onnx::HannWindow-17", 0, 0, 10)]:
        spec = specs.load(sid)
        base = generate(spec, 6, 3, profile="ci", kind="valid", expect=oracle.expectation)
        assert base and not any(c.constant_inputs[i] for c in base)
        seen = set()
        for c in base:
            for v in case_variants(spec, c, 6, 3, size="ci", expect=oracle.expectation):
                x = float(np.asarray(v.inputs[i]).reshape(-1)[0])
                assert lo <= x <= hi, (sid, x)
                seen.add(x)
        assert len(seen) >= 3, (sid, seen)


def test_a_tensor_attribute_is_drawn_from_its_declaration_and_broken_by_its_relations():
    spec = specs.load("onnx::ConstantOfShape-20")
    got = generate(spec, 30, 0, profile="ci", kind="valid")
    values = [c.attributes["value"] for c in got if "value" in c.attributes]
    assert values and all(v.shape == (1,) for v in values)
    assert len({v.dtype for v in values}) >= 4
    assert all(set(c.inputs[0].tolist()) <= {0, 1, 2, 3} for c in got)
    bad = sampling.generate(spec, 10, 0, kind="invalid")
    broken = {c.label.split(";")[0] for c in bad}
    assert {"breaks:value_one_element", "breaks:value_type", "breaks:input_nonnegative"} <= broken


@pytest.mark.parametrize("inputs,attributes,count", [
    ([np.zeros((6,), np.float32), np.array([1, 2, 3], np.int64)], {}, 3),
    ([np.zeros((6,), np.float32), None], {"num_outputs": 4}, 4),
    ([np.zeros((6,), np.float32), None], {"num_outputs": 0}, 1),  # a must-refuse case: still one slot
])
def test_a_variadic_outputs_count_is_spec_data(inputs, attributes, count):
    """Split's outputs without expected outputs (a must-refuse case's model): the port's arity."""
    spec = specs.load("onnx::Split-18")
    assert spec.outputs[0].arity is not None and hooks.module_for(spec) is not None
    assert not hasattr(hooks.module_for(spec), "variadic_output_count")
    case = Case(spec_id=spec.id, inputs=tuple(inputs), attributes=attributes, expected=Expectation("error", relation="x"),
                outputs_requested=(True,))
    assert len(onnx_model.output_slots(spec, case)) == count


@pytest.mark.parametrize("sid", ["onnx::BatchNormalization-6", "onnx::BatchNormalization-9", "onnx::BatchNormalization-15"])
def test_only_the_output_sets_a_spec_lists_are_drawn(sid):
    """BatchNormalization-15: Y alone in inference mode, Y and the running statistics in training
    mode; the ci plan's rows and free draws, valid and must-refuse, ask for nothing else."""
    from opconform.generator.factors import outputs_factor
    from opconform.suites import plan

    spec = specs.load(sid)
    sets = set(outputs_factor(spec).values)
    assert len(sets) == 2
    cases = plan.cases_for(spec.id, "ci", 11).cases
    assert cases
    mode = {1: "is_test", 6: "is_test", 14: "training_mode", 15: "training_mode"}.get(spec.since)
    for c in cases:
        assert tuple(c.outputs_requested) in sets, (c.label, c.outputs_requested)
        if mode is not None:
            training = (c.attributes.get(mode, 0) == 0) == (mode == "is_test")
            assert all(c.outputs_requested) == training, (c.label, c.attributes, c.outputs_requested)
