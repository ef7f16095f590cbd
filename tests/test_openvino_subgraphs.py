"""OpenVINO's sub-graph operations If-8, TensorIterator-1 and Loop-5: port maps, back edges, slicing and
concatenation against values worked by hand, and drawn cases and the documents' examples on openvino-native."""
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


def _examples_on_openvino(spec_id: str) -> list:
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.model import Case
    from opconform.suites import verdicts

    spec = specs.load(spec_id)
    backend = get("openvino-native")
    got = []
    for e in spec.examples:
        case = Case(spec.id, dict(e.attributes), tuple(e.inputs), (True,),
                    oracle.expectation(spec, list(e.inputs), dict(e.attributes)))
        got.append(verdicts.judge(spec, case, backend.execute(spec, case))[0])
    return got


@pytest.mark.backend
def test_tensor_iterator_document_examples_pass_on_openvino_native():
    got = _examples_on_openvino("openvino::TensorIterator-1")
    assert got == [Verdict.PASS] * 2, got


def _loop_attrs(**changes):
    """Example 1's body: the condition i < stop, h + i carried (the back edge), h concatenated on axis 1."""
    body = Graph((GraphValue("i", "int64", 0), GraphValue("h", "int64", 2), GraphValue("stop", "int64", 0)),
                 (GraphValue("go", "bool", 0), GraphValue("h2", "int64", 2), GraphValue("h3", "int64", 2)),
                 (Node("openvino::Less-1", ("i", "stop"), ("go",), {}), Node("openvino::Add-1", ("h", "i"), ("h2",), {}),
                  Node("openvino::Identity-16", ("h",), ("h3",), {})), 16, "body")
    attrs = {"body": body, "input_ports": [-1, 2, 3], "current_iteration": 0, "body_condition": 0,
             "back_edge_from": [1], "back_edge_to": [1], "output_results": [1, 2], "concatenated": [1], "concat_axis": [1]}
    attrs.update(changes)
    return attrs


def _loop(trip, go=True, stop=2, **changes):
    spec = specs.load("openvino::Loop-5")
    inputs = [np.array(trip, np.int64), np.array(go), np.array([[10]], np.int64), np.array(stop, np.int64)]
    return [x.tolist() for x in oracle.evaluate(spec, inputs, _loop_attrs(**changes))]


def test_loop_runs_while_the_trip_count_and_the_bodys_condition_allow():
    """Worked by hand: h = 10, then h + i after iterations 0, 1, 2 (the condition 2 < 2 ends it):
    13; the values h took concatenated: 10, 10, 11. A trip count of 2 ends it first, -1 never."""
    assert _loop(5) == [[[13]], [[10, 10, 11]]]
    assert _loop(-1) == [[[13]], [[10, 10, 11]]]
    assert _loop(2) == [[[11]], [[10, 10]]]
    assert _loop(5, stop=0) == [[[10]], [[10]]]  # the body's first condition is false: one iteration


def test_loop_after_zero_iterations_gives_initial_states_and_empty_concatenations():
    for trip, go in ((0, True), (3, False)):
        last, cat = _loop(trip, go)
        assert last == [[10]] and cat == [[]]


def test_loop_a_sliced_input_ends_the_loop_when_its_slices_run_out():
    """x = [[1, 2, 3]] sliced on axis 1 feeds Parameter 0 (no current iteration): h + x, 3 slices, trip 5."""
    spec = specs.load("openvino::Loop-5")
    body = Graph((GraphValue("x", "int64", 2), GraphValue("h", "int64", 2), GraphValue("go", "bool", 0)),
                 (GraphValue("go2", "bool", 0), GraphValue("s", "int64", 2)),
                 (Node("openvino::Identity-16", ("go",), ("go2",), {}), Node("openvino::Add-1", ("x", "h"), ("s",), {})),
                 16, "body")
    attrs = {"body": body, "input_ports": [2, 3, 4], "body_condition": 0, "sliced": [0], "slice_axis": [-1],
             "back_edge_from": [1], "back_edge_to": [1], "output_results": [1, 1], "concatenated": [1], "concat_axis": [1]}
    x, h = np.array([[1, 2, 3]], np.int64), np.array([[10]], np.int64)
    last, cat = oracle.evaluate(spec, [np.array(5, np.int64), np.array(True), x, h, np.array(True)], attrs)
    assert last.tolist() == [[16]] and cat.tolist() == [[11, 13, 16]]
    with pytest.raises(RelationBroken, match="current_iteration_unconnected"):
        oracle.evaluate(spec, [np.array(5, np.int64), np.array(True), x, h, np.array(True)], dict(attrs, current_iteration=0))


@pytest.mark.backend
def test_loop_document_examples_pass_on_openvino_native():
    got = _examples_on_openvino("openvino::Loop-5")
    assert got == [Verdict.PASS] * 2, got
