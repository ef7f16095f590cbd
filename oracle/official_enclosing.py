"""Official cases of an operator that reads its enclosing graph (Gradient): onnx's model test cases
(`onnx.backend.test.case.model`: test_gradient_of_add, test_gradient_of_add_and_mul), whose graphs
hold forward nodes and the node.

Such a model becomes one case as the spec holds it (a graph attribute with `emit: enclosing`): the
graph's inputs are the case's inputs, every other node forms the body (each node's spec version the
one in force at the model's default-domain opset, generator/onnx_body.py), its output the tensors
the node's string attributes name that the graph computes; the node's outputs are the expected ones.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from opconform.model import SpecVersion
from opconform.specs import dialects

__all__ = ["cases_for"]


@lru_cache(maxsize=1)
def _model_cases() -> tuple:
    import warnings

    from onnx.backend.test.case.model import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return tuple(c for c in collect_testcases() if c.kind == "simple" and c.model is not None)


def enclosing_attribute(spec: SpecVersion) -> str | None:
    """The name of the spec version's graph attribute that stands for its enclosing graph, if any."""
    return next((a.name for a in spec.attributes if a.signature is not None and a.signature.enclosing), None)


def cases_for(operator: str, dialect: str, spec: SpecVersion) -> list[dict]:
    """The fields of each official case (oracle.official.OfficialCase) of `operator` from onnx's model
    test cases. A forward node the library cannot stand for raises KeyError naming it."""
    from onnx import helper

    from opconform.generator import onnx_body

    slot = enclosing_attribute(spec)
    domain = dialects.get(dialect).domain
    out = []
    for c in _model_cases():
        g = c.model.graph
        own = [n for n in g.node if n.op_type == operator and n.domain == domain]
        if slot is None or len(own) != 1:
            continue
        node = own[0]
        opsets = {o.domain: o.version for o in c.model.opset_import}
        default_opset = opsets.get("", opsets.get("ai.onnx", 1))
        attributes = {a.name: onnx_body.attribute_value(a, opsets.get(domain, 1)) for a in node.attribute}
        named = [x for k in spec.attributes if k.type in ("string", "strings") for x in _names(attributes.get(k.name))]
        computed = {o for n in g.node if n is not node for o in n.output}
        outputs = [v for v in g.output if v.name in named and v.name in computed]
        forward = helper.make_graph([n for n in g.node if n is not node], "forward", list(g.input), outputs)
        attributes[slot] = onnx_body.from_proto(forward, default_opset)
        for k, (ins, outs) in enumerate(c.data_sets):
            by_name = {o.name: np.asarray(x) for o, x in zip(g.output, outs)}
            requested = tuple(j for j, n in enumerate(node.output) if n)
            out.append(dict(
                name=c.name + (f"[{k}]" if len(c.data_sets) > 1 else ""), operator=operator,
                opset=opsets.get(domain, 1), dialect=dialect, inputs=tuple(np.asarray(x) for x in ins),
                attributes=attributes, outputs_requested=requested,
                expected=tuple(by_name[node.output[j]] for j in requested), rtol=c.rtol, atol=c.atol))
    return out


def _names(v) -> list[str]:
    if isinstance(v, str):
        return [v]
    return list(v) if isinstance(v, (list, tuple)) else []
