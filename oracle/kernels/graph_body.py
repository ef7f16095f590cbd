"""Evaluating a body (opconform.graphs.Graph) with opconform's own oracle, node by node.

Each node runs its spec version's oracle (`oracle.evaluate`: its relations checked, its policies at
their defaults). Values of the enclosing scope are visible by name: the scope a body runs in is kept
while its nodes run, so a nested body (an If inside a Loop's body) reads the outer body's values.
A relation a node breaks is the body's: raised as the owner's `body_node` relation with the node's
verdict (error: the model must be refused; undefined: anything goes), naming the node.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Mapping, Sequence

import numpy as np

from opconform import dtypes
from opconform.graphs import Graph
from opconform.model import RelationBroken, SpecVersion

__all__ = ["run", "element_dtype"]

_SCOPE: ContextVar[Mapping[str, Any]] = ContextVar("opconform_body_scope", default={})


def run(owner: SpecVersion, graph: Graph, values: Sequence[Any]) -> list[Any]:
    """The body's outputs for these input values, in its output order."""
    from opconform import oracle, specs

    if len(values) != len(graph.inputs):
        raise RelationBroken(owner.id, "body_inputs", "error",
                             f"{graph.name} takes {len(graph.inputs)} inputs, the operator gives it {len(values)}")
    env = dict(_SCOPE.get())
    env.update({v.name: x for v, x in zip(graph.inputs, values)})
    for k, node in enumerate(graph.nodes):
        missing = [x for x in node.inputs if x and x not in env]
        if missing:
            raise RelationBroken(owner.id, "body_node", "error", f"{graph.name} node {k} reads undefined {missing}")
        spec = specs.load(node.spec_id)
        count = len(node.outputs) if spec.outputs and spec.outputs[-1].variadic else None
        token = _SCOPE.set(env)
        try:
            outs = oracle.evaluate(spec, [env[x] if x else None for x in node.inputs], dict(node.attributes),
                                   output_count=count)
        except RelationBroken as e:
            raise RelationBroken(owner.id, "body_node", e.on_violation,
                                 f"{graph.name} node {k} ({node.spec_id}) breaks {e.relation}") from None
        finally:
            _SCOPE.reset(token)
        env.update({name: y for name, y in zip(node.outputs, outs) if name})
    out = []
    for v in graph.outputs:
        if v.name not in env:
            raise RelationBroken(owner.id, "body_node", "error", f"{graph.name} output {v.name!r} is never computed")
        x = env[v.name]
        if isinstance(x, np.ndarray) and dtypes.name_of(x.dtype) != v.type:
            raise RelationBroken(owner.id, "body_output_types", "error",
                                 f"{graph.name} output {v.name!r} is {dtypes.name_of(x.dtype)}, declared {v.type}")
        out.append(x)
    return out


def element_dtype(graph: Graph, k: int) -> np.dtype:
    """The NumPy dtype of the body's k-th output as declared."""
    return np.dtype(dtypes.get(graph.outputs[k].type).numpy)


def stacked(graph: Graph, k: int, elements: Sequence[np.ndarray], probe: np.ndarray | None, policy: str,
            axis: int = 0) -> np.ndarray:
    """Scan output k: the body's per-iteration values of output k stacked along `axis`. After zero
    iterations the text gives no shape: `policy` element_shape stacks nothing onto the shape the body
    gives (`probe`, one run on the initial values), all_zero gives every dimension 0 at that rank."""
    if elements:
        if len({x.shape for x in elements}) > 1:  # "It is an error if the dimensions ... change across loop iterations"
            raise RelationBroken(graph.name, "scan_output_shapes_change", "error",
                                 f"output {graph.outputs[k].name!r} of shapes {sorted({x.shape for x in elements})}")
        return np.stack(elements, axis=axis)
    dt = element_dtype(graph, k)
    rank = (graph.outputs[k].rank if probe is None else probe.ndim)
    if rank is None:
        raise RelationBroken("", "zero_iteration_scan_shape", "undefined", "no element rank known")
    if policy == "all_zero" or probe is None:
        return np.zeros((0,) * (rank + 1), dt)
    shape = list(probe.shape)
    shape.insert(axis if axis >= 0 else rank + 1 + axis, 0)
    return np.zeros(shape, dt)


def probe(owner: SpecVersion, graph: Graph, values: Sequence[Any]) -> list[Any] | None:
    """The body's outputs on these values, for their shapes only; None where the body refuses them."""
    try:
        with np.errstate(all="ignore"):
            return run(owner, graph, values)
    except RelationBroken:
        return None
