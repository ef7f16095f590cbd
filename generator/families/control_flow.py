"""Family strategies for control flow (If, Loop, Scan): bodies drawn from operators already specified.

No relation can say how to draw a graph, so this family draws the whole case: the body (or the two
branches), the inputs it iterates over and the attributes that read it. A body is a chain of one to
three nodes of exact elementwise operators (Identity, Neg, Abs, Add, Sub, Mul: no tolerance, no
open choice), each the library's spec version in force at the body's opset (generator/onnx_body.py),
over values of one element type and shape; a Loop's condition is Identity(cond) or
Less(iteration_num, Constant(k)); an If branch starts from Constant nodes. So every body is itself a
generated computation the oracle evaluates node by node with each node's own oracle.

What the case aimed at goes to its label: `loop:M=given|empty,cond=given|empty,body_cond=...`,
`iterations:0`, `scan:in_axes,...`, `if:shapes_differ`.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from opconform import containers, dtypes
from opconform.generator import onnx_body, pins, shapes, values
from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.values import pick
from opconform.graphs import Graph, GraphValue, Node
from opconform.model import SpecVersion

UNARY = ("Identity", "Neg", "Abs")
BINARY = ("Add", "Sub", "Mul")
# the operators every body of the operator needs, whatever its element type: Identity (any type),
# If's Constant branches, Loop's condition Less(iteration_num, Constant(k))
_NEEDED = {"If": ("Identity", "Constant"), "Loop": ("Identity", "Constant", "Less"), "Scan": ("Identity",),
           "SequenceMap": ("Identity",)}


def body_plan(spec: SpecVersion) -> tuple[int, tuple[str, ...]]:
    """(opset, element types) of the bodies of this version: among the opsets at which the version
    is in force, one where the library stands for every operator a body needs and the most of the
    version's element types can be carried (If-1: opset 9, where Constant admits integers; Scan-8: 8)."""
    return _body_plan(spec.id)


@lru_cache(maxsize=None)
def _body_plan(spec_id: str) -> tuple[int, tuple[str, ...]]:
    import onnx.defs

    from opconform import specs

    spec = specs.load(spec_id)
    port = [containers.element_type(t) for t in spec.outputs[0].types]  # SequenceMap's: the sequences' tensors
    best: tuple[int, tuple[str, ...]] | None = None
    opset = spec.since
    while opset <= onnx.defs.onnx_opset_version():
        try:
            if onnx.defs.get_schema(spec.operator, opset).since_version != spec.since:
                break
        except onnx.defs.SchemaError:
            break
        needed = _NEEDED[spec.operator]
        stop = spec.operator != "Loop" or (_admits("Constant", opset, "int64") and _admits("Less", opset, "int64"))
        if stop and all(onnx_body.in_force(op, opset) is not None for op in needed):
            carried = ("Identity", "Constant") if spec.operator == "If" else ("Identity",)
            types = tuple(t for t in port if t in dtypes.BY_NAME and dtypes.get(t).numpy is not None
                          and all(_admits(op, opset, t) for op in carried))
            if best is None or len(types) > len(best[1]):
                best = (opset, types)
        opset += 1
    if best is None:
        raise ValueError(f"{spec.id}: no opset in force where the library stands for {_NEEDED[spec.operator]}")
    return best


@lru_cache(maxsize=None)
def _admits(op: str, opset: int, etype: str) -> bool:
    """Whether the operator's version in force at `opset` takes `etype` (its first type constraint)."""
    import onnx.defs

    if onnx_body.in_force(op, opset) is None:
        return False
    return dtypes.get(etype).onnx_str in onnx.defs.get_schema(op, opset).type_constraints[0].allowed_type_strs


@lru_cache(maxsize=None)
def body_operators(opset: int, etype: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(unary, binary) operators a body of this element type draws from (Identity always; no Sub of
    unsigned values: a difference below 0 is an overflow, undefined)."""
    unsigned = etype.startswith("uint")
    unary = tuple(op for op in UNARY if _admits(op, opset, etype))
    binary = tuple(op for op in BINARY if _admits(op, opset, etype) and not (unsigned and op == "Sub"))
    return unary, binary


def _node(op: str, opset: int, ins: tuple[str, ...], out: str, **attrs) -> Node:
    return Node(onnx_body.in_force(op, opset).id, ins, (out,), attrs)


def _chain(draw, opset: int, lane: list[str], count: int, prefix: str, etype: str) -> tuple[list[Node], str]:
    """`count` nodes of `etype`, each reading values of the lane or earlier nodes' outputs; the last one's output."""
    unary, binaries = body_operators(opset, etype)
    avail, nodes = list(lane), []
    for j in range(count):
        binary = bool(binaries) and draw(st.booleans())
        op = pick(draw, binaries if binary else unary)
        ins = (pick(draw, avail), pick(draw, avail)) if binary else (pick(draw, avail),)
        out = f"{prefix}{j}"
        nodes.append(_node(op, opset, ins, out))
        avail.append(out)
    return nodes, nodes[-1].outputs[0]


def _array(draw, etype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values for a body's lane: floats with their edge values, integers small (a product of a few
    iterations stays inside int32; an overflow would make the whole case undefined)."""
    kind = np.dtype(dtypes.get(etype).numpy).kind
    if kind in "iu":
        return values.ranged(draw, etype, shape, 0 if kind == "u" else -3, 3)
    return draw(values.arrays(etype, shape))


def _shape(draw, d: Draft, max_rank: int = 2) -> tuple[int, ...]:
    return draw(shapes.shapes(draw(st.integers(0, max_rank)), d.profile))


# ------------------------------------------------------------------ steps
def presence(draw, d: Draft) -> None:
    d.present, d.constant_inputs = [], []  # the inputs step decides, with the body


def element_types(draw, d: Draft) -> None:
    d.dtypes = [None] * len(d.spec.inputs)


def attributes(draw, d: Draft) -> None:
    d.attributes = {}


def inputs(draw, d: Draft) -> None:
    {"If": _if, "Loop": _loop, "Scan": _scan, "SequenceMap": _sequence_map}[d.spec.operator](draw, d)
    d.constant_inputs = [False] * len(d.inputs)


def _element_type(draw, d: Draft, port_name: str, types: tuple[str, ...]) -> str:
    return pins.element_type(draw, d, d.port(port_name), list(types))


def _if(draw, d: Draft) -> None:
    opset, types = body_plan(d.spec)
    count = draw(st.integers(1, 2))
    kinds = [pick(draw, types) for _ in range(count)]
    then_shapes = [_shape(draw, d) for _ in range(count)]
    differ = d.spec.since >= 11 and draw(st.booleans())  # If-1: equal shapes (see the spec's notes)
    else_shapes = [_shape(draw, d) for _ in range(count)] if differ else then_shapes
    branches = {}
    for side, side_shapes in (("then", then_shapes), ("else", else_shapes)):
        nodes, outs = [], []
        for j, (t, shape) in enumerate(zip(kinds, side_shapes)):
            const = f"{side}_c{j}"
            nodes.append(_node("Constant", opset, (), const, value=_array(draw, t, shape)))
            more, last = _chain(draw, opset, [const], draw(st.integers(1, 2)), f"{side}_{j}_t", t) if draw(st.booleans()) else ([], const)
            nodes += more
            outs.append(GraphValue(last, t, len(shape)))
        branches[f"{side}_branch"] = Graph((), tuple(outs), tuple(nodes), opset, f"{side}_branch")
    d.attributes = branches
    d.dtypes = ["bool"]
    d.present = [True]
    d.inputs = [np.array(draw(st.booleans())).reshape(pick(draw, [(), (1,)]))]
    if differ and then_shapes != else_shapes:
        d.notes.append("if:shapes_differ")


def _loop(draw, d: Draft) -> None:
    spec = d.spec
    opset, types = body_plan(spec)
    has_trip = pins.present(draw, d, d.port("M"))
    has_cond = pins.present(draw, d, d.port("cond"))
    if not has_trip and not has_cond:
        has_trip = True  # ("", "") never ends (relation terminates): not a case
    t = _element_type(draw, d, "v_initial", types)
    n = draw(st.integers(d.port("v_initial").min_arity, 2))
    k = draw(st.integers(0 if n else 1, 2))
    shape = _shape(draw, d)
    trip = draw(st.integers(0, 3))
    going = draw(st.booleans()) if has_cond else True
    stop = draw(st.integers(0, 3))
    # without a trip count the body's condition must turn false: Less(iteration_num, k)
    body_cond = "less" if not has_trip else pick(draw, ["identity", "less"])
    ins = [GraphValue("b_iter", "int64", 0), GraphValue("b_cond", "bool", 0)]
    ins += [GraphValue(f"b_v{i}", t, len(shape)) for i in range(n)]
    if body_cond == "identity":
        nodes = [_node("Identity", opset, ("b_cond",), "b_cond_out")]
    else:
        nodes = [_node("Constant", opset, (), "b_stop", value=np.array(stop, np.int64)),
                 _node("Less", opset, ("b_iter", "b_stop"), "b_cond_out")]
    lane = [v.name for v in ins[2:]]
    outs = [GraphValue("b_cond_out", "bool", 0)]
    budget = draw(st.integers(1, 3))
    for i in range(n):
        more, last = _chain(draw, opset, lane, max(1, budget if i == 0 else 1), f"b_v{i}_t", t)
        nodes += more
        outs.append(GraphValue(last, t, len(shape)))
    carried_out = [o.name for o in outs[1:]]
    for j in range(k):
        more, last = _chain(draw, opset, lane + carried_out if lane else ["b_iter"], 1, f"b_s{j}_t", t if lane else "int64")
        nodes += more
        outs.append(GraphValue(last, t if lane else "int64", len(shape) if lane else 0))
    d.attributes = {"body": Graph(tuple(ins), tuple(outs), tuple(nodes), opset, "loop_body")}
    d.dtypes = ["int64", "bool", t]
    d.present = [has_trip, has_cond] + [True] * n
    d.inputs = [np.array(trip, np.int64) if has_trip else None, np.array(going) if has_cond else None]
    d.inputs += [_array(draw, t, shape) for _ in range(n)]
    runs = min(trip if has_trip else 4, stop + 1 if body_cond == "less" and has_cond else 4) if going else 0
    d.notes.append(f"loop:M={'given' if has_trip else 'empty'},cond={'given' if has_cond else 'empty'},"
                   f"body_cond={body_cond}" + (",iterations:0" if runs == 0 else ""))


def _scan(draw, d: Draft) -> None:
    spec = d.spec
    opset, types = body_plan(spec)
    batched = spec.since == 8
    t = _element_type(draw, d, "initial_state_and_scan_inputs", types)
    m = draw(st.integers(1, 2))
    n = draw(st.integers(0, 2))
    k = draw(st.integers(0 if n else 1, 2))
    elem = _shape(draw, d)
    length = draw(st.integers(0, 3))
    r = len(elem) + 1
    lo = -r if spec.since >= 11 else 0
    in_axes = [0 if batched else draw(st.integers(lo, r - 1)) for _ in range(m)]
    in_dirs = [draw(st.integers(0, 1)) for _ in range(m)]
    out_axes = [draw(st.integers(lo, r - 1)) for _ in range(k)]
    out_dirs = [draw(st.integers(0, 1)) for _ in range(k)]
    ins = [GraphValue(f"b_s{i}", t, len(elem)) for i in range(n)] + [GraphValue(f"b_x{i}", t, len(elem)) for i in range(m)]
    lane = [v.name for v in ins]
    nodes, outs = [], []
    budget = draw(st.integers(1, 3))
    for i in range(n):
        more, last = _chain(draw, opset, lane, max(1, budget if i == 0 else 1), f"b_s{i}_t", t)
        nodes += more
        outs.append(GraphValue(last, t, len(elem)))
    for j in range(k):
        more, last = _chain(draw, opset, lane + [o.name for o in outs[:n]], 1, f"b_y{j}_t", t)
        nodes += more
        outs.append(GraphValue(last, t, len(elem)))
    attrs = {"num_scan_inputs": m, "body": Graph(tuple(ins), tuple(outs), tuple(nodes), opset, "scan_body")}
    given = []
    if batched:
        batch = draw(st.integers(1, 2))
        if pins.given(draw, d, "directions"):
            attrs["directions"] = in_dirs
            given.append("directions")
        has_lens = pins.present(draw, d, d.port("sequence_lens"))
        # a scan output past a shorter sequence is padded with what the text does not say: full lengths then
        lens = [length if k else draw(st.integers(0, length)) for _ in range(batch)]
        d.dtypes = ["int64", t]
        d.present = [has_lens] + [True] * (n + m)
        d.inputs = [np.array(lens, np.int64) if has_lens else None]
        d.inputs += [_array(draw, t, (batch, *elem)) for _ in range(n)]
        d.inputs += [_array(draw, t, (batch, length, *elem)) for _ in range(m)]
    else:
        for name, value in (("scan_input_axes", in_axes), ("scan_input_directions", in_dirs),
                            ("scan_output_axes", out_axes), ("scan_output_directions", out_dirs)):
            if value and pins.given(draw, d, name):
                attrs[name] = value
                given.append(name)
        d.dtypes = [t]
        d.present = [True] * (n + m)
        d.inputs = [_array(draw, t, elem) for _ in range(n)]
        for a in in_axes:
            a = a % r if "scan_input_axes" in given else 0
            d.inputs.append(_array(draw, t, elem[:a] + (length,) + elem[a:]))
    d.attributes = attrs
    d.notes.append("scan:" + ",".join(given or ["defaults"]) + (",iterations:0" if length == 0 else ""))


def _sequence_map(draw, d: Draft) -> None:
    """An input sequence of 0 to 3 tensors (shapes may differ item to item, one rank), 0 to 2 more
    inputs: sequences of the same length and item shapes, or scalars (they broadcast against any
    item); a body of 1 to 2 outputs, each a chain over all its inputs."""
    opset, types = body_plan(d.spec)
    seq_type = pins.element_type(draw, d, d.port("input_sequence"), [containers.sequence(t).type for t in types])
    t = containers.element_type(seq_type)
    length = draw(st.integers(0, 3))
    rank = draw(st.integers(0, 2))
    item_shapes = [draw(shapes.shapes(rank, d.profile)) for _ in range(length)]
    # more inputs: the first of the type a covering row may pin (any tensor or sequence type: one of
    # another element type than the lane's is given to the body and left unread), the rest of the lane's
    count = draw(st.integers(0, 2))
    options = [containers.sequence(x).type for x in types] + list(types)
    first = pins.element_type(draw, d, d.port("additional_inputs"), options)
    kinds = [first] + [pick(draw, [seq_type, t]) for _ in range(1, count)] if count else []
    extra = ["sequence" if containers.is_container_type(k) else "tensor" for k in kinds]
    elems = [containers.element_type(k) for k in kinds]
    ins = [GraphValue("b_in0", t, rank)] + [GraphValue(f"b_in{k + 1}", e, rank if x == "sequence" else 0)
                                           for k, (x, e) in enumerate(zip(extra, elems))]
    lane = [v.name for v in ins if v.type == t]
    nodes, outs = [], []
    for j in range(draw(st.integers(1, 2))):
        more, last = _chain(draw, opset, lane, draw(st.integers(1, 2)), f"b_o{j}_t", t)
        nodes += more
        outs.append(GraphValue(last, t, rank))
    d.attributes = {"body": Graph(tuple(ins), tuple(outs), tuple(nodes), opset, "map_body")}
    d.dtypes = [seq_type, kinds[0] if kinds else None]
    d.present = [True] * (1 + len(extra))
    d.inputs = [containers.sequence(t, [_array(draw, t, sh) for sh in item_shapes])]
    d.inputs += [containers.sequence(e, [_array(draw, e, sh) for sh in item_shapes]) if x == "sequence"
                 else _array(draw, e, ()) for x, e in zip(extra, elems)]
    d.notes.append("map:" + ",".join(extra or ["alone"]) + (",empty" if length == 0 else ""))


def outputs(draw, d: Draft) -> None:
    default.outputs(draw, d)


# ------------------------------------------------------------------ breakers
def _break_branch_count(draw, d: Draft) -> None:
    """else_branch with one output more than then_branch (a copy of its first)."""
    g = d.attributes["else_branch"]
    extra = g.outputs[0]
    node = _node("Identity", g.opset, (extra.name,), "else_extra")
    d.attributes["else_branch"] = Graph(g.inputs, g.outputs + (GraphValue("else_extra", extra.type, extra.rank),),
                                        g.nodes + (node,), g.opset, g.name)


def _break_branch_types(draw, d: Draft) -> None:
    """then_branch's first output computed and declared in another element type."""
    g = d.attributes["then_branch"]
    _, types = body_plan(d.spec)
    other = pick(draw, [t for t in types if t != g.outputs[0].type] or ["float32" if g.outputs[0].type != "float32" else "int64"])
    shape = (1,) * (g.outputs[0].rank or 0)
    const = _node("Constant", g.opset, (), "then_other", value=_array(draw, other, shape))
    outs = (GraphValue("then_other", other, g.outputs[0].rank),) + g.outputs[1:]
    d.attributes["then_branch"] = Graph(g.inputs, outs, g.nodes + (const,), g.opset, g.name)


def _break_body_inputs(draw, d: Draft) -> None:
    """One body input more than the operator gives (an unused value of the lane's type)."""
    g = d.attributes["body"]
    last = g.inputs[-1]
    d.attributes["body"] = Graph(g.inputs + (GraphValue("b_unused", last.type, last.rank),), g.outputs, g.nodes,
                                 g.opset, g.name)


def _break_body_outputs(draw, d: Draft) -> None:
    """One body output fewer than the carried values (Loop: with its condition) or states (Scan) need;
    the scan outputs go with it. A Scan without states has no count to fall short of: left valid."""
    g = d.attributes["body"]
    if d.spec.operator == "Loop":
        need = 1 + len(d.inputs) - 2
    else:
        need = len(d.inputs) - (1 if d.spec.since == 8 else 0) - d.attributes["num_scan_inputs"]
    if need:
        d.attributes["body"] = Graph(g.inputs, g.outputs[:need - 1], g.nodes, g.opset, g.name)


def _break_num_scan_inputs(draw, d: Draft) -> None:
    """num_scan_inputs 0, or more than the inputs given."""
    given = len(d.inputs) - (1 if d.spec.since == 8 else 0)
    d.attributes["num_scan_inputs"] = pick(draw, [0, given + 1])


def _break_scan_input_rank(draw, d: Draft) -> None:
    """The last scan input loses its sequence axis (Scan-8: its batch axis kept, rank 1)."""
    x = d.inputs[-1]
    d.inputs[-1] = _array(draw, dtypes.name_of(x.dtype), x.shape[:1] if d.spec.since == 8 else ())


BREAK = {
    "num_scan_inputs_in_range": _break_num_scan_inputs,
    "scan_inputs_rank": _break_scan_input_rank,
    "batched_ranks": _break_scan_input_rank,
    "branches_same_count": _break_branch_count,
    "branches_same_types": _break_branch_types,
    "body_inputs": _break_body_inputs,
    "body_outputs": _break_body_outputs,
}
