"""ai.onnx.preview.training Gradient-1: dY/dX for each X that xs names, by central differences over the
forward graph evaluated with opconform's own oracle (the spec's errata `derivative` states the step).

"Gradient operator computes the partial derivatives of a specific tensor w.r.t. some other tensors"
(onnx/docs/Operators.md, Gradient-1). The forward graph (the case's `forward`) runs once at the
inputs' own element types, so its nodes' relations are checked as a backend would meet them, and
then in float64 once per perturbed element; a relation a node breaks is raised as `body_node`.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from opconform.graphs import Graph
from opconform.model import RelationBroken
from opconform.oracle.kernels import graph_body, ml

RELATIVE_STEP = 1e-5  # h = RELATIVE_STEP * max(1, |x|): truncation (h^2) and cancellation (eps / h) both ~1e-10


@ml.quiet
def run(spec, inputs, attributes, policies, output_count=None):  # len(xs) decides the count
    forward: Graph = attributes["forward"]
    xs, y, zs = list(attributes["xs"]), attributes["y"], list(attributes.get("zs") or [])
    own = tensors_of(spec, forward, inputs)  # every tensor at its own element type
    wide_inputs = [np.asarray(x, np.float64) for x in inputs]
    grads = []
    for name in xs:
        x0 = np.asarray(own[name], np.float64)
        grad = np.zeros(x0.shape, np.float64)
        for i in np.ndindex(x0.shape):
            h = RELATIVE_STEP * max(1.0, abs(float(x0[i])))
            up, down = x0.copy(), x0.copy()
            up[i] += h
            down[i] -= h
            hi = _target(spec, forward, wide_inputs, {name: up}, y)
            lo = _target(spec, forward, wide_inputs, {name: down}, y)
            grad[i] = (hi - lo) / (2 * h)
        grads.append(grad.astype(np.asarray(own[name]).dtype))
    return tuple(grads)


def tensors_of(owner, forward: Graph, inputs: Sequence[np.ndarray],
               held: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Every tensor of the forward graph by name: its inputs fed, each node run by its spec version's
    oracle; a tensor in `held` keeps that value wherever it is fed or written."""
    from opconform import oracle, specs

    held = dict(held or {})
    env = {v.name: held.get(v.name, x) for v, x in zip(forward.inputs, inputs)}
    for k, node in enumerate(forward.nodes):
        missing = [x for x in node.inputs if x and x not in env]
        if missing:
            raise RelationBroken(owner.id, "body_node", "error", f"{forward.name} node {k} reads undefined {missing}")
        try:
            outs = oracle.evaluate(specs.load(node.spec_id), [env[x] if x else None for x in node.inputs],
                                   dict(node.attributes))
        except RelationBroken as e:
            raise RelationBroken(owner.id, "body_node", e.on_violation,
                                 f"{forward.name} node {k} ({node.spec_id}) breaks {e.relation}") from None
        env.update({n: held.get(n, v) for n, v in zip(node.outputs, outs) if n})
    return env


def _target(owner, forward: Graph, wide_inputs: Sequence[np.ndarray], held: Mapping[str, np.ndarray], y: str) -> float:
    """The sum of y's elements with `held` tensors set (see the errata: the text's y is a scalar)."""
    return float(np.sum(tensors_of(owner, forward, wide_inputs, held)[y], dtype=np.float64))
