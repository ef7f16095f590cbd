"""Graph-valued attributes: the bodies of If, Loop and Scan as data every stage can carry.

A body is a short list of nodes, each naming an opconform spec version (``onnx::Add-14``) with its
attributes, wired by value names, with typed inputs and outputs. It is what a case holds in its
attributes, what results.jsonl and the case cache store (``to_json``), what the report prints
(``text``), what the ONNX model builder turns into a GraphProto and what the oracle evaluates node
by node with each node's own oracle. Nothing here knows ONNX protos or how a body is evaluated.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from opconform import tensors

__all__ = ["GraphValue", "Node", "Graph", "GraphSignature", "is_graph_json"]

_KIND = "graph"  # the marker of a serialized body among attribute values


@dataclass(frozen=True)
class GraphSignature:
    """What a graph attribute's body must take and give, as the text says (Loop's body:
    (iteration_num, condition, loop_carried...) -> (condition, loop_carried..., scan_output...)).
    A name ending in "..." stands for any number of values, possibly none."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    text: str = ""
    # Gradient's forward graph: its nodes go into the enclosing graph, not onto the node as an
    # attribute; the case's inputs feed the body's inputs, and the node reads the tensors the
    # string attributes named in `reads` name, in that order (xs then zs)
    enclosing: bool = False
    reads: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"({', '.join(self.inputs)}) -> ({', '.join(self.outputs)})"


@dataclass(frozen=True)
class GraphValue:
    """A body input or output: its name, element type and, where fixed, its rank."""

    name: str
    type: str  # canonical element type name (opconform.dtypes)
    rank: int | None = None


@dataclass(frozen=True)
class Node:
    """One node of a body: the spec version it computes, its inputs and outputs by value name
    ("" for an absent optional input), and the attributes set on it."""

    spec_id: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def operator(self) -> str:
        return self.spec_id.split("::", 1)[1].rsplit("-", 1)[0]


@dataclass(frozen=True)
class Graph:
    """A body: inputs, nodes in an order that defines each value before it is read, outputs.
    `opset` is the opset of the default domain the nodes are written for (each node's spec
    version is the one in force there, or one with the same interface: see the model builder)."""

    inputs: tuple[GraphValue, ...]
    outputs: tuple[GraphValue, ...]
    nodes: tuple[Node, ...]
    opset: int
    name: str = "body"

    def outer_names(self) -> tuple[str, ...]:
        """Values the nodes read that neither a body input nor an earlier node defines: names of
        the enclosing scope, in order of first use."""
        defined = {v.name for v in self.inputs}
        outer: list[str] = []
        for n in self.nodes:
            outer += [x for x in n.inputs if x and x not in defined and x not in outer]
            defined |= set(n.outputs)
        outer += [o.name for o in self.outputs if o.name not in defined and o.name not in outer]
        return tuple(outer)

    def text(self) -> str:
        """One line a report can print: `body(i: int64, v: float32) -> (v2) { t = Neg(v); v2 = Add(t, v) }`."""
        ins = ", ".join(f"{v.name}: {v.type}" for v in self.inputs)
        outs = ", ".join(v.name for v in self.outputs)
        body = "; ".join(_node_text(n) for n in self.nodes)
        return f"{self.name}({ins}) -> ({outs}) {{ {body} }}"

    def to_json(self) -> dict:
        return {
            "kind": _KIND,
            "name": self.name,
            "opset": self.opset,
            "inputs": [[v.name, v.type, v.rank] for v in self.inputs],
            "outputs": [[v.name, v.type, v.rank] for v in self.outputs],
            "nodes": [
                {"spec": n.spec_id, "inputs": list(n.inputs), "outputs": list(n.outputs),
                 "attributes": {k: _value_json(v) for k, v in sorted(n.attributes.items())}}
                for n in self.nodes
            ],
        }

    @classmethod
    def from_json(cls, d: Mapping) -> "Graph":
        return cls(
            inputs=tuple(GraphValue(*v) for v in d["inputs"]),
            outputs=tuple(GraphValue(*v) for v in d["outputs"]),
            nodes=tuple(
                Node(n["spec"], tuple(n["inputs"]), tuple(n["outputs"]),
                     {k: _value_from_json(v) for k, v in n["attributes"].items()})
                for n in d["nodes"]
            ),
            opset=int(d["opset"]),
            name=d.get("name", "body"),
        )


def is_graph_json(v: Any) -> bool:
    return isinstance(v, Mapping) and v.get("kind") == _KIND and "nodes" in v


def _node_text(n: Node) -> str:
    attrs = ", ".join(f"{k}={_short(v)}" for k, v in sorted(n.attributes.items()))
    call = f"{n.operator}({', '.join(x or '_' for x in n.inputs)}{'; ' + attrs if attrs else ''})"
    return f"{', '.join(n.outputs)} = {call}"


def _short(v: Any) -> str:
    if isinstance(v, Graph):
        return v.text()
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=8, separator=",").replace("\n", "")
    return repr(v)


def _value_json(v: Any) -> Any:
    if isinstance(v, Graph):
        return v.to_json()
    if isinstance(v, np.ndarray):
        return {"tensor": tensors.encode(v)}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_value_json(x) for x in v]
    return v


def _value_from_json(v: Any) -> Any:
    if is_graph_json(v):
        return Graph.from_json(v)
    if isinstance(v, Mapping) and set(v) == {"tensor"}:
        return tensors.decode(v["tensor"])
    return v
