"""openvino-native adapters for OpenVINO's sub-graph operations: If-8 (openvino.opset8.if_op),
TensorIterator-1 (opset1.tensor_iterator) and Loop-5 (opset5.loop). A body (opconform.graphs.Graph)
becomes an ov.Model whose nodes come from each node's own opset factory, as a one-node model's do;
the port maps become the factories' set_input / set_sliced_input / set_merged_input /
set_invariant_input / set_output / get_iter_value / get_concatenated_slices calls."""
from __future__ import annotations

from itertools import zip_longest
from typing import Any

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory
from opconform.graphs import Graph

__all__ = ["body_model"]


def body_model(graph: Graph) -> tuple[Any, list, list]:
    """(ov.Model, its Parameters, its Results) of a body: Parameters of the declared element type
    and rank with every dimension dynamic, one Result per body output."""
    import openvino as ov

    from opconform import dtypes, specs

    params = [ov.op.Parameter(getattr(ov.Type, dtypes.get(v.type).openvino), ov.PartialShape.dynamic(v.rank) if v.rank is not None
                              else ov.PartialShape.dynamic()) for v in graph.inputs]
    for p, v in zip(params, graph.inputs):
        p.set_friendly_name(v.name)
    env = {v.name: p.output(0) for v, p in zip(graph.inputs, params)}
    for node in graph.nodes:
        spec = specs.load(node.spec_id)
        opset = _opset_of(spec.operator, spec.since)
        args = [env[x] if x else None for x in node.inputs]
        attributes = spec.resolved_attributes(dict(node.attributes))
        adapter = ADAPTERS.get(spec.operator)
        built = adapter(opset, args, attributes) if adapter else _call(factory(opset, spec.operator), args, attributes)
        env.update({name: built.output(k) for k, name in enumerate(node.outputs) if name})
    results = [ov.op.Result(env[v.name]) for v in graph.outputs]
    return ov.Model(results, params, graph.name), params, results


def _opset_of(operator: str, since: int) -> Any:
    """openvino.opset<since>, or the first later module with a factory for the operator (the Python
    modules lag the C++ opsets, as the one-node model builder finds)."""
    import importlib

    for n in range(since, 17):
        module = importlib.import_module(f"openvino.opset{n}")
        if operator in ADAPTERS or factory(module, operator) is not None:
            return module
    raise NotImplementedError(f"no openvino.opsetN module from {since} builds {operator}")


def _output(x: Any) -> Any:
    return x.output(0) if hasattr(x, "output") else x


def _if(opset: Any, args: list, attributes: dict) -> Any:
    """Each If input feeds the Parameters whose port-map entry names it, a then and an else one a
    call (an input named by two Parameters of one body is passed twice); output j pairs Result j of
    each body."""
    import openvino.opset8 as ov8

    given = [None] + (list(args[1]) if len(args) > 1 and args[1] is not None else [])
    for side in ("then", "else"):
        ports, body = attributes[f"{side}_inputs"], attributes[f"{side}_body"]
        if len(ports) > len(body.inputs) or any(not 1 <= k < len(given) for k in ports):
            # the IR can hold such an entry; set_input can only name a Parameter and an If input that exist
            raise RuntimeError(f"not supported by the Python factory openvino.opset8.if_op(): {side}_port_map entries "
                               f"{list(ports)} for {len(body.inputs)} Parameters and {len(given) - 1} If inputs")
    node = ov8.if_op(_output(args[0]))
    then_model, then_params, then_results = body_model(attributes["then_body"])
    else_model, else_params, else_results = body_model(attributes["else_body"])
    node.set_then_body(then_model)
    node.set_else_body(else_model)
    for port in range(1, len(given)):
        fed_then = [p for p, k in zip(then_params, attributes["then_inputs"]) if k == port]
        fed_else = [p for p, k in zip(else_params, attributes["else_inputs"]) if k == port]
        for tp, ep in zip_longest(fed_then, fed_else):
            node.set_input(_output(given[port]), tp, ep)
    for tr, er in zip(then_results, else_results):
        node.set_output(tr, er)
    return node


ADAPTERS["If"] = _if
