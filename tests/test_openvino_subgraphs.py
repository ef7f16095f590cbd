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
