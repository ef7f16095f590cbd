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


def _unsupported(operator: str, what: str) -> RuntimeError:
    # the IR can hold such port maps; the factories' calls can only name what exists, once
    return RuntimeError(f"not supported by the Python factory of {operator}: {what}")


def _full(a: dict, prefix: str, listed: str) -> dict:
    """An entry's partitioning attributes by what it lists: TensorIterator's axis, start, end and
    stride; Loop's axis alone (start 0, end -1, stride 1: every slice in order)."""
    n = len(a[listed])
    return {x: list(a.get(f"{prefix}_{x}", [d] * n)) for x, d in (("axis", 0), ("start", 0), ("end", -1), ("stride", 1))}


def _check_iteration_maps(operator: str, given: list, attributes: dict, params: list, results: list,
                          current: int = -1) -> None:
    a = attributes
    slicing, concat = _full(a, "slice", "sliced"), _full(a, "concat", "concatenated")
    lists_agree = (len(a["input_ports"]) == len(params) and len(a["back_edge_from"]) == len(a["back_edge_to"])
                   and all(len(v) == len(a["sliced"]) for v in slicing.values())
                   and all(len(v) == len(a["concatenated"]) for v in concat.values()))
    in_range = (all(0 <= k < len(given) or (j == current and k == -1) for j, k in enumerate(a["input_ports"]))
                and all(0 <= k < len(params) for k in a["sliced"])
                and all(0 <= k < len(results) for k in list(a["back_edge_from"]) + list(a["output_results"]))
                and all(0 <= k < len(params) for k in a["back_edge_to"])
                and all(0 <= k < len(a["output_results"]) for k in a["concatenated"]))
    if not (lists_agree and in_range):
        raise _unsupported(operator, "port map entries or back edges that name no port, Parameter or Result, "
                                     "or partitioning attributes without their entry")


def iterate(node: Any, given: list, attributes: dict, params: list, results: list, current: int = -1) -> list:
    """The port map and back edges of TensorIterator or Loop set on `node` (Loop's current iteration
    Parameter, a special body port, left out); its outputs in order."""
    a = attributes
    sl, co = _full(a, "slice", "sliced"), _full(a, "concat", "concatenated")
    slicing = {k: (sl["axis"][i], sl["start"][i], sl["end"][i], sl["stride"][i]) for i, k in enumerate(a["sliced"])}
    back = dict(zip(a["back_edge_to"], a["back_edge_from"]))
    for k, (p, port) in enumerate(zip(params, a["input_ports"])):
        if k == current:
            continue
        value = _output(given[port])
        if k in slicing:
            ax, s, e, st = slicing[k]
            node.set_sliced_input(p, value, s, st, 1, e, ax)
        elif k in back:
            node.set_merged_input(p, value, results[back[k]].output(0))
        else:
            node.set_invariant_input(p, value)
    concat = {j: (co["axis"][i], co["start"][i], co["end"][i], co["stride"][i]) for i, j in enumerate(a["concatenated"])}
    outs = []
    for j, r in enumerate(a["output_results"]):
        if j in concat:
            ax, s, e, st = concat[j]
            outs.append(node.get_concatenated_slices(results[r].output(0), s, st, 1, e, ax))
        else:
            outs.append(node.get_iter_value(results[r].output(0), -1))
    return outs


def _tensor_iterator(opset: Any, args: list, attributes: dict) -> Any:
    import openvino.opset1 as ov1

    given = list(args[0]) if args and args[0] is not None else []
    model, params, results = body_model(attributes["body"])
    _check_iteration_maps("TensorIterator-1 (opset1.tensor_iterator)", given, attributes, params, results)
    node = ov1.tensor_iterator()
    node.set_body(model)
    iterate(node, given, attributes, params, results)
    return node


ADAPTERS["TensorIterator"] = _tensor_iterator


def _loop(opset: Any, args: list, attributes: dict) -> Any:
    import openvino.opset5 as ov5

    given = list(args[:2]) + (list(args[2]) if len(args) > 2 and args[2] is not None else [])
    model, params, results = body_model(attributes["body"])
    current, condition = attributes["current_iteration"], attributes["body_condition"]
    _check_iteration_maps("Loop-5 (opset5.loop)", given, attributes, params, results, current)
    if not (-1 <= current < len(params) and 0 <= condition < len(results)):
        raise _unsupported("Loop-5 (opset5.loop)", f"special body ports {[current, condition]} name no Parameter or Result")
    node = ov5.loop(_output(given[0]), _output(given[1]))
    node.set_function(model)
    node.set_special_body_ports([current, condition])
    iterate(node, given, attributes, params, results, current)
    return node


ADAPTERS["Loop"] = _loop
