"""OpenVINO's sub-graph operations: If-8 (port maps feeding each body's Parameters), its drawn cases
on openvino-native, and the IR export of a case that carries bodies."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.graphs import Graph, GraphValue, Node
from opconform.model import RelationBroken, Verdict


def _body(name: str, params: list[str], nodes: list[tuple[str, tuple[str, ...], str]], outs: list[str],
          etype: str = "float32", rank: int = 1) -> Graph:
    return Graph(tuple(GraphValue(p, etype, rank) for p in params), tuple(GraphValue(o, etype, rank) for o in outs),
                 tuple(Node(s, ins, (out,), {}) for s, ins, out in nodes), 16, name)


_THEN = _body("then_body", ["a", "b"], [("openvino::Subtract-1", ("a", "b"), "d")], ["d"])
_ELSE = _body("else_body", ["a"], [("openvino::Negative-1", ("a",), "n")], ["n"])
_X, _Y, _Z = (np.array(v, np.float32) for v in ([1, 2], [10, 20], [100, 200]))


def _if(cond, then_inputs, else_inputs=(3,)):
    attrs = {"then_body": _THEN, "else_body": _ELSE, "then_inputs": list(then_inputs), "else_inputs": list(else_inputs)}
    return oracle.evaluate(specs.load("openvino::If-8"), [np.array(cond), _X, _Y, _Z], attrs)


def test_if_feeds_each_parameter_the_input_its_port_map_names():
    """Worked by hand: then_body computes a - b; then_inputs [3, 1] gives a = input 3, b = input 1."""
    assert _if(True, [3, 1])[0].tolist() == [99, 198]
    assert _if(True, [1, 3])[0].tolist() == [-99, -198]
    assert _if([False], [1, 3], [2])[0].tolist() == [-10, -20]


def test_if_refuses_what_its_document_rules_out():
    with pytest.raises(RelationBroken, match="cond_one_element"):
        _if([True, False], [1, 2])
    with pytest.raises(RelationBroken, match="then_port_ids_in_range"):
        _if(True, [1, 4])
    with pytest.raises(RelationBroken, match="then_port_map_complete"):
        _if(True, [1])
    ints = _body("else_body", ["a"], [("openvino::Negative-1", ("a",), "n")], ["n"], etype="int32")
    attrs = {"then_body": _THEN, "else_body": ints, "then_inputs": [1, 2], "else_inputs": [1]}
    with pytest.raises(RelationBroken, match="bodies_same_types"):
        oracle.evaluate(specs.load("openvino::If-8"), [np.array(True), _X, _Y], attrs)


def test_if_a_parameter_fed_another_type_is_refused():
    attrs = {"then_body": _THEN, "else_body": _ELSE, "then_inputs": [1, 2], "else_inputs": [2]}
    with pytest.raises(RelationBroken, match="body_input_types"):
        oracle.evaluate(specs.load("openvino::If-8"), [np.array(False), _X, _Y.astype(np.int32)], attrs)


def _generated(spec_id: str, count: int, seed: int, kind: str = "valid"):
    from opconform.generator import sampling

    return sampling.generate(specs.load(spec_id), count, seed, kind=kind, expect=oracle.expectation)


def test_if_cases_are_drawn_with_bodies_and_port_maps():
    cases = _generated("openvino::If-8", 6, 11)
    assert cases
    for c in cases:
        then, ports = c.attributes["then_body"], c.attributes["then_inputs"]
        assert len(ports) == len(then.inputs) and all(1 <= k < len(c.inputs) for k in ports)


@pytest.mark.backend
def test_if_float_cases_pass_on_openvino_native():
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.suites import verdicts

    spec = specs.load("openvino::If-8")
    backend = get("openvino-native")
    floats = [c for c in _generated("openvino::If-8", 60, 11) if c.inputs[1].dtype == np.float32][:3]
    got = [verdicts.judge(spec, c, backend.execute(spec, c))[0] for c in floats]
    assert got and all(v is Verdict.PASS for v in got), got


def test_tensor_iterator_slice_indices_follow_the_documents_examples():
    from opconform.oracle.openvino.tensoriterator import slice_indices

    assert slice_indices(5, 0, -1, 1) == [0, 1, 2, 3, 4]  # the defaults: every slice
    assert slice_indices(5, -1, 0, -1) == [4, 3, 2, 1, 0]  # Example 1: backwards
    assert slice_indices(25, 0, -1, 1) == list(range(25))  # Example 2: start 0 on an axis of 25


def _ti_attrs(**changes):
    body = _body("body", ["x", "h"], [("openvino::Add-1", ("x", "h"), "s"), ("openvino::Identity-16", ("s",), "s2")],
                 ["s", "s2"], rank=2)
    attrs = {"body": body, "input_ports": [0, 1], "sliced": [0], "slice_axis": [1], "slice_start": [0],
             "slice_end": [-1], "slice_stride": [1], "back_edge_from": [1], "back_edge_to": [1],
             "output_results": [0, 1], "concatenated": [0], "concat_axis": [1], "concat_start": [0],
             "concat_end": [-1], "concat_stride": [1]}
    attrs.update(changes)
    return attrs


def test_tensor_iterator_carries_a_state_and_concatenates_the_slices():
    """Worked by hand: running sums of [1, 2, 3] from 10: 11, 13, 16 concatenated, 16 the last value;
    backwards (stride -1 on the input) 13, 15, 16, and concatenated in reverse (stride -1 on the output)."""
    spec = specs.load("openvino::TensorIterator-1")
    x, h = np.array([[1, 2, 3]], np.float32), np.array([[10]], np.float32)
    cat, last = oracle.evaluate(spec, [x, h], _ti_attrs())
    assert cat.tolist() == [[11, 13, 16]] and last.tolist() == [[16]]
    cat, _ = oracle.evaluate(spec, [x, h], _ti_attrs(slice_start=[-1], slice_end=[0], slice_stride=[-1]))
    assert cat.tolist() == [[13, 15, 16]]
    cat, _ = oracle.evaluate(spec, [x, h], _ti_attrs(concat_stride=[-1]))
    assert cat.tolist() == [[16, 13, 11]]
    with pytest.raises(RelationBroken, match="back_edges_paired"):
        oracle.evaluate(spec, [x, h], _ti_attrs(back_edge_to=[]))


@pytest.mark.backend
def test_tensor_iterator_document_examples_pass_on_openvino_native():
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.model import Case
    from opconform.suites import verdicts

    spec = specs.load("openvino::TensorIterator-1")
    backend = get("openvino-native")
    got = []
    for e in spec.examples:
        case = Case(spec.id, dict(e.attributes), tuple(e.inputs), (True,),
                    oracle.expectation(spec, list(e.inputs), dict(e.attributes)))
        got.append(verdicts.judge(spec, case, backend.execute(spec, case))[0])
    assert got == [Verdict.PASS] * len(spec.examples), got
