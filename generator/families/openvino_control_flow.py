"""Family strategies for OpenVINO's sub-graph operations (If-8, TensorIterator-1, Loop-5): bodies
drawn from OpenVINO operations already specified, with the port maps that feed them.

As for ONNX's control flow (families/control_flow.py), no relation can say how to draw a graph, so
this family draws the whole case: the bodies, the operation's inputs and the port maps. A body is a
chain of one to three nodes of exact elementwise OpenVINO operations (Identity-16, Negative-1,
Abs-1, Add-1, Subtract-1, Multiply-1) over values of one element type and shape, each node's spec
version naming the operation; the model builder makes it an ov.Model of the same opset factories
(generator/openvino_subgraph_adapters.py) and the oracle evaluates it node by node.

What the case aimed at goes to its label: `if:then|else,params=...`.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import pins, shapes, values
from opconform.generator.draft import Draft
from opconform.generator.families import control_flow, default
from opconform.generator.values import pick
from opconform.graphs import Graph, GraphValue, Node

UNARY = ("openvino::Identity-16", "openvino::Negative-1", "openvino::Abs-1")
BINARY = ("openvino::Add-1", "openvino::Subtract-1", "openvino::Multiply-1")
# the opset a body's nodes are written for: each node names its own version, built from that
# version's openvino.opsetN factory; the number is what the body JSON records
BODY_OPSET = 16


@lru_cache(maxsize=None)
def _admits(spec_id: str, etype: str) -> bool:
    from opconform import specs

    return etype in specs.load(spec_id).inputs[0].types


@lru_cache(maxsize=None)
def body_operators(etype: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(unary, binary) operations a body of this element type draws from (Identity always; no
    Subtract of unsigned values: a difference below 0 wraps around, and no Negative of them)."""
    unsigned = etype.startswith("uint")
    unary = tuple(op for op in UNARY if _admits(op, etype))
    binary = tuple(op for op in BINARY if _admits(op, etype) and not (unsigned and op.endswith("Subtract-1")))
    return unary, binary


def lane_types(port_types: tuple[str, ...]) -> tuple[str, ...]:
    """The element types a body can carry: those Identity takes and NumPy holds."""
    return tuple(t for t in port_types if dtypes.get(t).numpy is not None and _admits(UNARY[0], t))


def chain(draw, lane: list[str], count: int, prefix: str, etype: str) -> tuple[list[Node], str]:
    """`count` nodes of `etype`, each reading values of the lane or earlier nodes' outputs; the last one's output."""
    unary, binaries = body_operators(etype)
    nodes: list[Node] = []
    for j in range(count):
        avail = list(lane) + [n.outputs[0] for n in nodes]
        arity = 2 if binaries and draw(st.booleans()) else 1
        op = pick(draw, binaries if arity == 2 else unary)
        nodes.append(Node(op, tuple(pick(draw, avail) for _ in range(arity)), (f"{prefix}{j}",), {}))
    return nodes, nodes[-1].outputs[0]


# values a body computes on: floats with their edge values, integers small (ONNX's bodies' draw)
lane_array = control_flow._array


def _shape(draw, d: Draft, max_rank: int = 2) -> tuple[int, ...]:
    return draw(shapes.shapes(draw(st.integers(0, max_rank)), d.profile))


# ------------------------------------------------------------------ steps
# presence, element types and attributes are drawn with the bodies, in `inputs`, as ONNX's are
presence, element_types, attributes = control_flow.presence, control_flow.element_types, control_flow.attributes


def inputs(draw, d: Draft) -> None:
    {"If": _if, "TensorIterator": _tensor_iterator, "Loop": _loop}[d.spec.operator](draw, d)
    d.constant_inputs = [False] * len(d.inputs)


def _body(draw, name: str, params: list[GraphValue], outputs: int, etype: str, rank: int) -> Graph:
    """A body over these Parameters with `outputs` Results, each a chain of 1 to 2 nodes."""
    lane = [p.name for p in params]
    nodes, outs = [], []
    for j in range(outputs):
        more, last = chain(draw, lane, draw(st.integers(1, 2)), f"{name}_{j}_t", etype)
        nodes += more
        outs.append(GraphValue(last, etype, rank))
    return Graph(tuple(params), tuple(outs), tuple(nodes), BODY_OPSET, name)


def _if(draw, d: Draft) -> None:
    """1 to 3 If inputs of one element type and shape; each body takes 1 to all of them, in a drawn
    order, and gives the same 1 or 2 outputs' count and types."""
    t = pins.element_type(draw, d, d.port("inputs"), list(lane_types(d.port("inputs").types)))
    shape = _shape(draw, d)
    count = draw(st.integers(1, 3))
    outputs = draw(st.integers(1, 2))
    attrs = {}
    for side in ("then", "else"):
        order = draw(st.permutations(range(1, count + 1)))
        ports = list(order[: draw(st.integers(1, count))])
        params = [GraphValue(f"{side}_p{k}", t, len(shape)) for k in range(len(ports))]
        attrs[f"{side}_body"] = _body(draw, f"{side}_body", params, outputs, t, len(shape))
        attrs[f"{side}_inputs"] = ports
    d.attributes = attrs
    d.dtypes = ["bool", t]
    d.present = [True] * (1 + count)
    cond = draw(st.booleans())
    d.inputs = [np.array(cond).reshape(pick(draw, [(), (1,)]))] + [lane_array(draw, t, shape) for _ in range(count)]
    d.notes.append(f"if:{'then' if cond else 'else'},inputs={count}")


# the two full-range slicings (the default, and Example 1's backward one): the document's start and
# end otherwise read two ways (the spec's erratum end_inclusive)
FULL_RANGES = ((0, -1, 1), (-1, 0, -1))


def _tensor_iterator(draw, d: Draft) -> None:
    """1 to 2 inputs sliced on a drawn axis (one length, 1 to 3), 0 to 2 merged states of the slice's
    shape with their back edges, 0 to 1 invariant input; outputs: each state's last value or not,
    and 0 to 2 per-iteration values concatenated on a drawn axis (at least one output)."""
    t = pins.element_type(draw, d, d.port("inputs"), list(lane_types(d.port("inputs").types)))
    elem = _shape(draw, d)
    rank = len(elem) + 1
    length = draw(st.integers(1, 3))
    m, n, inv = draw(st.integers(1, 2)), draw(st.integers(0, 2)), draw(st.integers(0, 1))
    a = draw(st.integers(0, rank - 1))  # one axis: slices of one shape (a negative one is undefined)
    axes = [a] * m
    slice_shape = elem[:a] + (1,) + elem[a:]
    params = [GraphValue(f"b_x{i}", t, rank) for i in range(m)] + [GraphValue(f"b_h{i}", t, rank) for i in range(n)]
    params += [GraphValue(f"b_c{i}", t, rank) for i in range(inv)]
    k = draw(st.integers(0 if n else 1, 2))
    # the states' next values (Results 0 to n - 1), then the per-iteration values (named b_y...)
    states = _body(draw, "b_h", params, n, t, rank)
    scans = _body(draw, "b_y", params, k, t, rank)
    nodes, outs = states.nodes + scans.nodes, states.outputs + scans.outputs
    kept = [i for i in range(n) if draw(st.booleans())] if k else list(range(n))
    ranges = [pick(draw, FULL_RANGES) for _ in range(m + k)]
    out_axes = [draw(st.integers(0, rank - 1)) for _ in range(k)]
    order = list(draw(st.permutations(range(len(params)))))  # the inputs' order at the operation
    d.attributes = {
        "body": Graph(tuple(params), outs, nodes, BODY_OPSET, "body"),
        "input_ports": [order.index(p) for p in range(len(params))],
        "sliced": list(range(m)), "slice_axis": axes, "slice_start": [r[0] for r in ranges[:m]],
        "slice_end": [r[1] for r in ranges[:m]], "slice_stride": [r[2] for r in ranges[:m]],
        "back_edge_from": list(range(n)), "back_edge_to": [m + i for i in range(n)],
        "output_results": kept + [n + j for j in range(k)],
        "concatenated": [len(kept) + j for j in range(k)], "concat_axis": out_axes,
        "concat_start": [r[0] for r in ranges[m:]], "concat_end": [r[1] for r in ranges[m:]],
        "concat_stride": [r[2] for r in ranges[m:]],
    }
    by_param = []
    for p in range(len(params)):
        if p < m:
            by_param.append(lane_array(draw, t, elem[:a] + (length,) + elem[a:]))
        else:
            by_param.append(lane_array(draw, t, slice_shape))
    d.dtypes = [t]
    d.inputs = [by_param[order[i]] for i in range(len(params))]
    d.present = [True] * len(d.inputs)
    d.notes.append(f"tensor_iterator:sliced={m},merged={n},invariant={inv},concatenated={k}"
                   + (",backward" if any(r[2] < 0 for r in ranges) else ""))


def _loop(draw, d: Draft) -> None:
    """A trip count of -1 to 3, an execution condition, 0 to 1 input sliced on a drawn axis (0 to 3
    slices), 0 to 2 merged states with their back edges, 0 to 1 invariant input; the condition either
    Less(current iteration, stop) with stop an input as is, or an input flag passed on (Identity);
    outputs: each state's last value or not, 0 to 2 per-iteration values concatenated on a drawn
    axis (at least one output). A loop with trip count -1 and no slice ends by Less."""
    t = pins.element_type(draw, d, d.port("inputs"), list(lane_types(d.port("inputs").types)))
    it = pins.element_type(draw, d, d.port("trip_count"), list(d.port("trip_count").types))
    elem = _shape(draw, d)
    m, n, inv = draw(st.integers(0, 1)), draw(st.integers(0, 2)), draw(st.integers(0, 1))
    inv = inv or int(not m and not n)  # the body's values need a lane to compute from
    rank = len(elem) + (1 if m else 0)
    a = draw(st.integers(0, len(elem))) if m else 0
    length = draw(st.integers(0, 3))
    state_shape = elem[:a] + (1,) + elem[a:] if m else elem
    trip = draw(st.integers(-1, 3))
    going = draw(st.booleans()) if draw(st.booleans()) else True
    cond_kind = "less" if (trip == -1 and not m) else pick(draw, ["less", "flag"])
    params = [GraphValue("b_i", it, 0)] if cond_kind == "less" or draw(st.booleans()) else []
    current = 0 if params else -1
    params += [GraphValue(f"b_x{i}", t, rank) for i in range(m)] + [GraphValue(f"b_h{i}", t, rank) for i in range(n)]
    params += [GraphValue(f"b_c{i}", t, rank) for i in range(inv)]
    lane = [p for p in params if p.type == t and p.name != "b_i"]
    extra = [GraphValue("b_stop", it, 0)] if cond_kind == "less" else [GraphValue("b_flag", "bool", 0)]
    params += extra
    cond_node = (Node("openvino::Less-1", ("b_i", "b_stop"), ("b_go",), {}) if cond_kind == "less"
                 else Node(UNARY[0], ("b_flag",), ("b_go",), {}))
    k = draw(st.integers(0 if n else 1, 2))
    states = _body(draw, "b_h", lane, n, t, rank)
    scans = _body(draw, "b_y", lane, k, t, rank)
    cond_first = draw(st.booleans())
    go = (GraphValue("b_go", "bool", 0),)
    outs = (go + states.outputs + scans.outputs) if cond_first else (states.outputs + scans.outputs + go)
    shift = 1 if cond_first else 0
    kept = [i for i in range(n) if draw(st.booleans())] if k else list(range(n))
    out_axes = [draw(st.integers(-rank, rank - 1)) if rank else 0 for _ in range(k)]
    if not rank:  # a scalar per iteration cannot be concatenated: its values are last values then
        kept, k_cat = kept + [n + j for j in range(k)], 0
    else:
        k_cat = k
    inner = [p for p in range(len(params)) if p != current]
    order = list(draw(st.permutations(inner)))  # the inputs' order at the operation, after trip count and condition
    d.attributes = {
        "body": Graph(tuple(params), outs, (cond_node,) + states.nodes + scans.nodes, BODY_OPSET, "body"),
        "input_ports": [-1 if p == current else 2 + order.index(p) for p in range(len(params))],
        "current_iteration": current,
        "body_condition": 0 if cond_first else len(outs) - 1,
        "sliced": [current + 1] if m else [], "slice_axis": [pick(draw, [a, a - rank])] if m else [],
        "back_edge_from": [shift + i for i in range(n)], "back_edge_to": [current + 1 + m + i for i in range(n)],
        "output_results": [shift + i for i in kept] + [shift + n + j for j in range(k_cat)],
        "concatenated": [len(kept) + j for j in range(k_cat)], "concat_axis": out_axes[:k_cat],
    }
    stop = draw(st.integers(0, 3))
    by_param = {}
    for p, v in enumerate(params):
        if v.name.startswith("b_x"):
            by_param[p] = lane_array(draw, t, elem[:a] + (length,) + elem[a:])
        elif v.name == "b_stop":
            by_param[p] = np.array(stop, dtypes.numpy_dtype(it))
        elif v.name == "b_flag":
            by_param[p] = np.array(draw(st.booleans()))
        elif v.name != "b_i":
            by_param[p] = lane_array(draw, t, state_shape)
    d.dtypes = [it, "bool", t]
    d.inputs = [np.array(trip, dtypes.numpy_dtype(it)).reshape(pick(draw, [(), (1,)])),
                np.array(going).reshape(pick(draw, [(), (1,)]))] + [by_param[p] for p in order]
    d.present = [True] * len(d.inputs)
    d.notes.append(f"loop:trip={'-1' if trip < 0 else 'given'},condition={cond_kind},sliced={m},merged={n},"
                   f"concatenated={k_cat}" + ("" if going else ",not_started"))


def outputs(draw, d: Draft) -> None:
    default.outputs(draw, d)


# ------------------------------------------------------------------ breakers
def _break_cond_one_element(draw, d: Draft) -> None:
    """cond of two elements (the first picks the body)."""
    d.inputs[0] = np.array([draw(st.booleans()), draw(st.booleans())])


def _break_bodies_same_types(draw, d: Draft) -> None:
    """then_body's first output of another element type: an If input of that type more, fed to a
    Parameter of then_body that the output passes on (Identity)."""
    g = d.attributes["then_body"]
    lane = g.outputs[0].type
    other = pick(draw, [x for x in lane_types(d.port("inputs").types) if x != lane])
    rank = g.outputs[0].rank or 0
    d.inputs.append(lane_array(draw, other, (1,) * rank))
    d.present.append(True)
    d.constant_inputs.append(False)
    param = GraphValue("then_other", other, rank)
    node = Node(UNARY[0], (param.name,), ("then_other_out",), {})
    d.attributes["then_body"] = Graph(g.inputs + (param,), (GraphValue("then_other_out", other, rank),) + g.outputs[1:],
                                      g.nodes + (node,), g.opset, g.name)
    d.attributes["then_inputs"] = list(d.attributes["then_inputs"]) + [len(d.inputs) - 1]


# relations the Python factories cannot express broken (set_output pairs a Result of each body,
# set_input names a Parameter the model holds) are not drawn broken: bodies_have_outputs,
# bodies_same_count, *_port_map_complete, *_port_ids_in_range
BREAK = {
    "cond_one_element": _break_cond_one_element,
    "bodies_same_types": _break_bodies_same_types,
}
