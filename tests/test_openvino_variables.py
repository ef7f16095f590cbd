"""OpenVINO's infrastructure operations Constant-1, ReadValue-3 and Assign-3: the oracles against the
documents' statements (worked values written here, the documents giving none), the variable's state
as ports (docs/spec-format.md "Variables"), a chain of inferences on one request equal to the chain
of single-inference cases, and drawn cases on openvino-native."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import sampling
from opconform.model import RelationBroken

READ_VALUE, ASSIGN, CONSTANT = "openvino::ReadValue-3", "openvino::Assign-3", "openvino::Constant-1"


def _run(spec_id: str, inputs: list, attributes: dict) -> tuple:
    return tuple(np.asarray(y) for y in oracle.evaluate(specs.load(spec_id), inputs, attributes))


def test_read_value_returns_init_value_when_the_variable_was_not_set():
    """'If the corresponding variable was not set or was reset, the operation returns the value from the 1 input.'"""
    init = np.array([[1.5, -2.0], [0.0, 3.25]], np.float32)
    (got,) = _run(READ_VALUE, [init, None], {"variable_id": "v"})
    np.testing.assert_array_equal(got, init)
    assert got.dtype == np.float32


def test_read_value_returns_what_the_variable_holds_once_set():
    """'ReadValue returns value from the corresponding variable_id variable if the variable was set already.'"""
    (got,) = _run(READ_VALUE, [np.zeros(3, np.int32), np.array([7, -1, 4], np.int32)], {"variable_id": "v"})
    np.testing.assert_array_equal(got, [7, -1, 4])


def test_assign_outputs_new_value_and_leaves_it_in_the_variable():
    new = np.array([[1.5, -2.0]], np.float32)
    output, variable = _run(ASSIGN, [new, np.zeros((1, 2), np.float32)], {"variable_id": "v"})
    np.testing.assert_array_equal(output, new)
    np.testing.assert_array_equal(variable, new)


@pytest.mark.parametrize("new, declared, relation", [
    (np.array([1, 2], np.int32), np.zeros(2, np.float32), "variable_type_matches_new_value"),  # new_value_type_declared, through T
    (np.zeros(3, np.float32), np.zeros(2, np.float32), "new_value_shape_declared"),
])
def test_assign_refuses_a_value_of_another_type_or_shape_than_declared(new, declared, relation):
    with pytest.raises(RelationBroken) as e:
        _run(ASSIGN, [new, declared], {"variable_id": "v"})
    assert e.value.relation == relation


def test_constant_produces_its_content_and_refuses_a_size_short_of_it():
    value = np.array([[1.5, -2.0], [0.0, 3.25]], np.float32)
    attributes = {"offset": 1000, "size": 16, "element_type": "f32", "shape": [2, 2], "value": value}
    (got,) = _run(CONSTANT, [], attributes)
    np.testing.assert_array_equal(got, value)
    with pytest.raises(RelationBroken) as e:
        _run(CONSTANT, [], dict(attributes, size=15))
    assert e.value.relation == "content_covers_shape"


def test_constant_hook_draws_content_its_attributes_describe():
    """Shape, element type and size agree with the drawn content in every valid case."""
    spec = specs.load(CONSTANT)
    cases = sampling.generate(spec, 12, 11, kind="valid", expect=oracle.expectation)
    assert len(cases) >= 8
    for case in cases:
        a = case.attributes
        assert list(a["value"].shape) == list(a["shape"]) and a["size"] == a["value"].nbytes
        assert len({c.attributes["element_type"] for c in cases}) > 3


def _pair(ov, element_type):
    """A stateful model as models have it: y = ReadValue(init) + x, Assign(y), result y."""
    import openvino.opset3 as ops

    init = ops.parameter(ov.PartialShape.dynamic(1), element_type, name="init")
    x = ops.parameter(ov.PartialShape.dynamic(1), element_type, name="x")
    read = ops.read_value(init, "acc")
    y = ops.add(read, x)
    return ov.Model([y.output(0)], [ops.assign(y, "acc")], [init, x], "accumulate")


@pytest.mark.backend
def test_inferences_on_one_request_are_the_chain_of_single_inference_cases():
    """The design: N inferences are N cases, each one's state input the state output of the one before.
    Three inferences of y = ReadValue + x, Assign(y) on one request agree with ReadValue's and Assign's
    oracles chained through the variable; reset_state() is a case with the variable absent again."""
    ov = pytest.importorskip("openvino")
    request = ov.Core().compile_model(_pair(ov, ov.Type.f32), "CPU").create_infer_request()
    init = np.array([1.0, -2.0, 0.5], np.float32)
    held = None
    for k, x in enumerate([np.array([1, 2, 3], np.float32), np.array([-4, 0.25, 8], np.float32), np.ones(3, np.float32)]):
        (read,) = _run(READ_VALUE, [init, held], {"variable_id": "acc"})
        want, held = _run(ASSIGN, [read + x, read], {"variable_id": "acc"})
        got = request.infer([init, x])[0]
        np.testing.assert_array_equal(got, want, err_msg=f"inference {k}")
        np.testing.assert_array_equal(request.query_state()[0].state.data, held, err_msg=f"state after inference {k}")
    request.reset_state()
    (read,) = _run(READ_VALUE, [init, None], {"variable_id": "acc"})
    np.testing.assert_array_equal(request.infer([init, np.zeros(3, np.float32)])[0], read)


_CARRIED = ("float32", "int32", "int8", "uint8")  # element types OpenVINO's CPU plugin keeps in a variable as they are


@pytest.mark.backend
@pytest.mark.parametrize("spec_id", [READ_VALUE, ASSIGN, CONSTANT])
def test_drawn_cases_pass_on_openvino_native(spec_id):
    """Valid and must-refuse cases of the element types the CPU plugin carries unconverted (the others,
    Assign's own output and its shape check meet OpenVINO's bugs the README lists)."""
    pytest.importorskip("openvino")
    from opconform import dtypes
    from opconform.backends import get
    from opconform.model import Verdict
    from opconform.suites import verdicts

    spec = specs.load(spec_id)

    def plain(case) -> bool:
        types = [dtypes.name_of(x.dtype) for x in case.inputs if x is not None]
        types += [dtypes.name_of(case.attributes["value"].dtype)] if "value" in case.attributes else []
        asks_assign_output = spec.operator == "Assign" and case.outputs_requested[0]
        # OpenVINO checks new_value's shape against the declaration only where both are static: the
        # model's new_value is a dynamic Parameter, so a shape mismatch is written (README)
        unchecked = case.label.startswith("breaks:new_value_shape_declared")
        return all(t in _CARRIED for t in types) and not asks_assign_output and not unchecked

    backend = get("openvino-native")
    cases = [c for kind in ("valid", "invalid")
             for c in sampling.generate(spec, 4, 11, kind=kind, expect=oracle.expectation, keep=plain)]
    assert any(c.expected.kind == "outputs" for c in cases)
    for case in cases:
        verdict, detail, _ = verdicts.judge(spec, case, backend.execute(spec, case))
        assert verdict == Verdict.PASS, (case.id, case.label, detail)
