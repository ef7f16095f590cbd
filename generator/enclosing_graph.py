"""A graph attribute that stands for the node's enclosing graph (`emit: enclosing`, Gradient's forward
computation), as the ONNX model builder writes it: the body's nodes go into the model's graph before
the node, the case's inputs feed the body's inputs by their names, and the node reads the tensors its
string attributes listed in `reads` name (Gradient: xs then zs), not graph inputs of its own."""
from __future__ import annotations

from typing import Any, Callable

import onnx

from opconform.generator import onnx_body
from opconform.graphs import Graph
from opconform.model import Case, SpecVersion

__all__ = ["of", "node_inputs", "forward_nodes"]


def of(spec: SpecVersion, case: Case) -> tuple[str, Graph] | None:
    """(attribute name, body) of the case's enclosing-graph attribute, or None."""
    for a in spec.attributes:
        if a.signature is not None and a.signature.enclosing and isinstance(case.attributes.get(a.name), Graph):
            return a.name, case.attributes[a.name]
    return None


def node_inputs(spec: SpecVersion, case: Case, name: str) -> list[str]:
    """The tensors the node reads: the names of the `reads` attributes, in order."""
    signature = next(a.signature for a in spec.attributes if a.name == name)
    resolved = spec.resolved_attributes(case.attributes)
    out: list[str] = []
    for attr in signature.reads:
        v = resolved.get(attr)
        out += [v] if isinstance(v, str) else list(v or [])
    return out


def forward_nodes(body: Graph, attribute_value: Callable[[Any, str | None], Any]) -> list[onnx.NodeProto]:
    """The body's nodes as NodeProtos of the default domain (opset `body.opset`)."""
    return list(onnx_body.to_proto(body, attribute_value).node)
