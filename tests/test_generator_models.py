"""Model builders: a variadic output port becomes one node output per part (Split), and OpenVINO
constants may be empty (an invalid Unique axis reaches OpenVINO's own refusal)."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from opconform import oracle
from opconform.generator import generate, onnx_model, openvino_model
from tests.helpers_generator import load_or_fail


@pytest.mark.parametrize("spec_id", ["onnx::Split-13", "onnx::Split-18"])
def test_split_models_have_one_output_per_expected_part(spec_id):
    ort = pytest.importorskip("onnxruntime")

    spec = load_or_fail(spec_id)
    ran = 0
    for case in generate(spec, 20, seed=4, expect=oracle.expectation):
        slots = onnx_model.output_slots(spec, case)
        assert [name for _, name in slots] == [f"outputs_{m}" for m in range(len(slots))]
        model = onnx_model.build(spec, case)
        onnx.checker.check_model(model)
        assert [o.name for o in model.graph.output] == [name for _, name in slots]
        if case.expected.kind != "outputs" or case.inputs[0].dtype.kind not in "biuf":
            continue
        want = case.expected.alternatives[0].outputs
        assert len(slots) == len(want)
        session = ort.InferenceSession(model.SerializeToString())
        fed = {i.name for i in session.get_inputs()}
        feeds = {n: x for n, x in zip(onnx_model.input_names(spec, case), case.inputs) if n in fed}
        got = session.run(None, feeds)
        assert [g.shape for g in got] == [w.shape for w in want]
        ran += 1
    assert ran >= 3  # the check above ran on real cases, not only on refusals


def test_split_without_expected_outputs_counts_parts_from_split_or_num_outputs():
    spec = load_or_fail("onnx::Split-18")
    for case in generate(spec, 20, seed=5):  # no expect=: the count comes from the inputs/attributes
        split = case.inputs[1] if len(case.inputs) > 1 else None
        n = max(split.size, 1) if split is not None else case.attributes.get("num_outputs", 1)
        assert len(onnx_model.output_slots(spec, case)) == n


def test_openvino_empty_constant_keeps_its_element_type_and_shape():
    pytest.importorskip("openvino")
    import openvino.opset10 as opset

    for dt, name in ((np.int64, "i64"), (np.int32, "i32")):
        node = openvino_model.constant(np.zeros((0,), dt), opset)
        assert str(node.get_output_partial_shape(0)) == "[0]"
        assert node.get_element_type().get_type_name() == name


def test_openvino_unique_with_an_empty_axis_is_refused_by_openvino_not_by_the_builder():
    pytest.importorskip("openvino")
    spec = load_or_fail("openvino::Unique-10")
    empty = [c for c in generate(spec, 60, seed=3, expect=oracle.expectation)
             if len(c.inputs) > 1 and c.inputs[1] is not None and c.inputs[1].size == 0]
    assert empty, "no case with an empty axis drawn"
    for case in empty:
        with pytest.raises(RuntimeError, match="get_input_partial_shape\\(1\\)"):
            openvino_model.build(spec, case)


def test_onehot_depth_is_fed_and_small():
    """depth is drawn from its port's value range (and so are its value variants, see
    tests/test_draw_hints.py): fed like any input, no longer frozen as a constant."""
    spec = load_or_fail("onnx::OneHot-11")
    valid = [c for c in generate(spec, 20, seed=1, expect=oracle.expectation) if c.expected.kind == "outputs"]
    assert valid
    for case in valid:
        assert not case.constant_inputs[1] and 0 <= int(case.inputs[1].reshape(-1)[0]) <= 4
        model = onnx_model.build(spec, case)
        assert "depth" in [i.name for i in model.graph.input]
