"""Bodies of graph attributes (opconform.graphs.Graph) as ONNX GraphProtos, and back.

A body node names an opconform spec version. In an ONNX model the node's version is the one in
force at the model's opset; `in_force` says which library version stands for it: the version itself
where the library has it, else the library's next version when onnx.defs gives both the same
interface (input names and arity, output names, attribute names: Add-7 and Add-13 differ only in
the element types they admit), else none (Unsqueeze-11's axes attribute is Unsqueeze-13's input).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import onnx
import onnx.defs
from onnx import helper, numpy_helper

from opconform import dtypes, specs
from opconform.graphs import Graph, GraphValue, Node
from opconform.model import SpecVersion

__all__ = ["in_force", "to_proto", "from_proto", "opset_of", "attribute_value"]


def _interface(schema) -> tuple:
    return (tuple((p.name, str(p.option)) for p in schema.inputs), tuple(p.name for p in schema.outputs),
            tuple(sorted(schema.attributes)))


@lru_cache(maxsize=None)
def in_force(operator: str, opset: int, domain: str = "") -> SpecVersion | None:
    """The library's spec version that computes `operator` at this opset (see the module text)."""
    try:
        schema = onnx.defs.get_schema(operator, opset, domain)
        spec = specs.load_spec("onnx", operator)
    except (onnx.defs.SchemaError, KeyError):
        return None
    later = sorted((v for v in spec.versions if v.since >= schema.since_version), key=lambda v: v.since)
    if not later:
        return None
    if later[0].since == schema.since_version:
        return later[0]
    standin = later[0]
    if _interface(onnx.defs.get_schema(operator, standin.since, domain)) == _interface(schema):
        return standin
    return None


def opset_of(attributes: dict) -> int | None:
    """The opset a case's bodies are written for (the highest of its graph attributes), or None."""
    found = [v.opset for v in attributes.values() if isinstance(v, Graph)]
    return max(found) if found else None


def _value_info(v: GraphValue) -> onnx.ValueInfoProto:
    """Its element type and rank; every dimension unknown (a named one would claim what the body does
    not promise: tract unified a state's symbols with the iterations' shapes and refused valid cases)."""
    shape = None if v.rank is None else [None] * v.rank
    return helper.make_tensor_value_info(v.name, dtypes.get(v.type).onnx, shape)


def to_proto(graph: Graph, attribute_value: Callable[[Any, str | None], Any]) -> onnx.GraphProto:
    """The GraphProto of a body: its nodes by operator name, attributes as onnx.helper writes them
    (a nested body as a GraphProto, an array as a TensorProto), typed inputs and outputs with
    dimensions of unknown size. `attribute_value(value, declared type)`: the model builder's conversion of
    an attribute value (it calls back here for a nested body)."""
    nodes = []
    for n in graph.nodes:
        spec = specs.load(n.spec_id)
        declared = {a.name: a.type for a in spec.attributes}
        attrs = {k: attribute_value(v, declared.get(k)) for k, v in sorted(n.attributes.items())}
        nodes.append(helper.make_node(n.operator, list(n.inputs), list(n.outputs), **attrs))
    return helper.make_graph(nodes, graph.name, [_value_info(v) for v in graph.inputs],
                             [_value_info(v) for v in graph.outputs])


def from_proto(g: onnx.GraphProto, opset: int) -> Graph:
    """A GraphProto as a body, each node's spec version the one `in_force` gives at `opset`.
    Raises KeyError naming the node whose operator the library cannot stand for."""
    nodes = []
    for k, n in enumerate(g.node):
        spec = in_force(n.op_type, opset, n.domain)
        if spec is None:
            raise KeyError(f"body {g.name!r} node {k} ({n.op_type}): no spec version of {n.op_type} in force at opset {opset}")
        attrs = {a.name: attribute_value(a, opset) for a in n.attribute}
        nodes.append(Node(spec.id, tuple(n.input), tuple(n.output), attrs))
    return Graph(tuple(_graph_value(v) for v in g.input), tuple(_graph_value(v) for v in g.output), tuple(nodes),
                 opset, g.name or "body")


def _graph_value(vi: onnx.ValueInfoProto) -> GraphValue:
    t = vi.type.tensor_type
    etype = dtypes.BY_ONNX[t.elem_type].name if t.elem_type else "float32"
    return GraphValue(vi.name, etype, len(t.shape.dim) if t.HasField("shape") else None)


def attribute_value(a: onnx.AttributeProto, opset: int) -> Any:
    """A node attribute's value as a case holds it: a graph as a body (KeyError where `from_proto`
    cannot read it), a tensor as an array, a type as a type string (opconform.containers), text as str."""
    if a.type == onnx.AttributeProto.GRAPH:
        return from_proto(a.g, opset)
    if a.type == onnx.AttributeProto.TENSOR:
        return numpy_helper.to_array(a.t)
    if a.type == onnx.AttributeProto.TYPE_PROTO:  # Optional's type
        from opconform.generator import value_protos

        return value_protos.type_string(a.tp)
    v = helper.get_attribute_value(a)
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, list) and v and isinstance(v[0], bytes):
        return [s.decode("utf-8") for s in v]
    return v


