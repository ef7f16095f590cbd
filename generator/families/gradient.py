"""Family strategy for Gradient (ai.onnx.preview.training): the forward graph and the names it is read by.

No relation can say how to draw a graph, so this family draws the whole case: a forward computation
of one to three nodes of smooth elementwise operators (Identity, Neg, Exp, Tanh, Sigmoid, Add, Sub,
Mul: numeric differentiation is well defined everywhere; Relu and Abs are not at 0), each the
library's spec version in force at opset 17, over one to three float inputs of one shape; y is the
last node's output, xs a non-empty subset of the inputs and zs the others (absent when none).
Values lie in [-2, 2] and Exp appears at most once, so no value leaves float32's range.
"""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator import onnx_body, shapes, values
from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.values import pick
from opconform.graphs import Graph, GraphValue, Node

OPSET = 17
UNARY = ("Identity", "Neg", "Exp", "Tanh", "Sigmoid")
BINARY = ("Add", "Sub", "Mul")
TYPES = ("float32", "float64")
ABSENT = "not_a_tensor"  # a name no forward graph defines


def presence(draw, d: Draft) -> None:
    d.present, d.constant_inputs = [True], []


def element_types(draw, d: Draft) -> None:
    d.dtypes = [pick(draw, TYPES)]


def attributes(draw, d: Draft) -> None:
    d.attributes = {}


def inputs(draw, d: Draft) -> None:
    etype = d.dtypes[0]
    count = draw(st.integers(1, 3))
    shape = draw(shapes.shapes(draw(st.integers(0, 2)), d.profile, min_side=1, max_side=3))
    names = [f"x{k}" for k in range(count)]
    avail, nodes, exp_used = list(names), [], False
    for j in range(draw(st.integers(1, 3))):
        binary = draw(st.booleans())
        op = pick(draw, BINARY) if binary else pick(draw, [u for u in UNARY if not (exp_used and u == "Exp")])
        exp_used |= op == "Exp"
        ins = (pick(draw, avail), pick(draw, avail)) if binary else (pick(draw, avail),)
        nodes.append(Node(onnx_body.in_force(op, OPSET).id, ins, (f"t{j}",)))
        avail.append(f"t{j}")
    y = nodes[-1].outputs[0]
    forward = Graph(tuple(GraphValue(n, etype, len(shape)) for n in names), (GraphValue(y, etype, len(shape)),),
                    tuple(nodes), OPSET, "forward")
    chosen = draw(st.permutations(names))
    split = draw(st.integers(1, count))
    d.attributes = {"forward": forward, "xs": list(chosen[:split]), "y": y}
    if split < count:
        d.attributes["zs"] = list(chosen[split:])
    d.inputs = [values.ranged(draw, etype, shape, -2, 2, 0.125) for _ in names]
    d.constant_inputs = [False] * count
    d.notes.append(f"gradient:{len(nodes)}_nodes,{split}_of_{count}")


def outputs(draw, d: Draft) -> None:
    default.outputs(draw, d)


# ------------------------------------------------------------------ breakers
def _break_xs(draw, d: Draft) -> None:
    """One name of xs that no tensor of the graph has."""
    xs = list(d.attributes["xs"])
    xs[draw(st.integers(0, len(xs) - 1))] = ABSENT
    d.attributes["xs"] = xs


def _break_zs(draw, d: Draft) -> None:
    d.attributes["zs"] = list(d.attributes.get("zs", [])) + [ABSENT]


def _break_y(draw, d: Draft) -> None:
    d.attributes["y"] = ABSENT


def _break_disjoint(draw, d: Draft) -> None:
    """zs repeats a name of xs."""
    d.attributes["zs"] = list(d.attributes.get("zs", [])) + [pick(draw, d.attributes["xs"])]


def _break_types(draw, d: Draft) -> None:
    """The forward graph's inputs (and the values fed) of an integer type."""
    g = d.attributes["forward"]
    d.attributes["forward"] = Graph(tuple(GraphValue(v.name, "int32", v.rank) for v in g.inputs), g.outputs,
                                    g.nodes, g.opset, g.name)
    d.inputs = [x.astype("int32") for x in d.inputs]


BREAK = {
    "xs_name_tensors": _break_xs,
    "zs_name_tensors": _break_zs,
    "y_names_a_tensor": _break_y,
    "xs_zs_disjoint": _break_disjoint,
    "differentiable_types": _break_types,
}
