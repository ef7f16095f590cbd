"""The official ONNX node test cases (`onnx.backend.test.case.node`), run through the oracle.

onnx no longer ships the node test data on disk; `collect_testcases()` rebuilds them in memory
(about 8 s, so it is cached per process). Only single-node cases count (the multi-node ones are
function expansions of the same tests), each of the dialect of its node's domain (specs/dialects.py:
test_ai_onnx_ml_* cases are onnx_ml's), at the opset its model imports for that domain.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

import onnx.defs

from opconform import compare, specs
from opconform.oracle import official_enclosing
from opconform.specs import dialects
from opconform.model import SpecVersion, Tolerance


@dataclass(frozen=True)
class OfficialCase:
    name: str
    operator: str
    opset: int
    dialect: str  # whose spec the case is checked against (specs/dialects.py: the node's domain)
    inputs: tuple[np.ndarray | None, ...]  # in spec input order; None for an absent optional input
    attributes: dict[str, Any]
    outputs_requested: tuple[int, ...]  # indices of spec outputs the node asks for
    expected: tuple[np.ndarray, ...]  # one per requested output, in the same order
    rtol: float
    atol: float


@dataclass(frozen=True)
class UnreadableBody:
    """A graph attribute with a node no library spec version stands for (see generator/onnx_body.py)."""

    reason: str


@dataclass(frozen=True)
class OfficialResult:
    case: OfficialCase
    spec_id: str | None
    passed: bool
    message: str


@lru_cache(maxsize=1)
def _all_cases() -> tuple:
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return tuple(collect_testcases())


def attribute_value(attr, opset: int | None = None) -> Any:
    """A node attribute's value (generator/onnx_body.py); a graph as a body whose nodes are the spec
    versions in force at `opset`, or an UnreadableBody saying which node the library cannot stand for."""
    from opconform.generator import onnx_body

    try:
        return onnx_body.attribute_value(attr, opset or 1)
    except KeyError as e:
        return UnreadableBody(str(e.args[0]))


@lru_cache(maxsize=None)
def cases_for(operator: str, dialect: str = "onnx") -> tuple[OfficialCase, ...]:
    """Every single-node official case of an operator of an ONNX dialect (an operator-set domain)."""
    domain = dialects.get(dialect).domain
    domains = (domain, "ai.onnx") if domain == "" else (domain,)
    out = []
    for c in _all_cases():
        g = c.model.graph
        if len(g.node) != 1 or g.node[0].op_type != operator or g.node[0].domain not in domains:
            continue
        node = g.node[0]
        opset = next(o.version for o in c.model.opset_import if o.domain in domains)
        for ds_index, (ins, outs) in enumerate(c.data_sets):
            by_name = {i.name: _value(x, i.type) for i, x in zip(g.input, ins)}
            for init in g.initializer:
                from onnx import numpy_helper

                by_name[init.name] = numpy_helper.to_array(init)
            inputs = tuple(by_name[n] if n else None for n in node.input)
            out_by_name = {o.name: _value(x, o.type) for o, x in zip(g.output, outs)}
            requested = tuple(k for k, n in enumerate(node.output) if n)
            expected = tuple(out_by_name[node.output[k]] for k in requested)
            out.append(
                OfficialCase(
                    name=c.name + (f"[{ds_index}]" if len(c.data_sets) > 1 else ""),
                    operator=operator,
                    opset=opset,
                    dialect=dialect,
                    inputs=inputs,
                    attributes={a.name: attribute_value(a, opset) for a in node.attribute},
                    outputs_requested=requested,
                    expected=expected,
                    rtol=c.rtol,
                    atol=c.atol,
                )
            )
    spec = spec_for(operator, onnx.defs.onnx_opset_version(), dialect) if dialects.is_onnx(dialect) else None
    if spec is not None and official_enclosing.enclosing_attribute(spec):  # Gradient: model cases, several nodes
        out += [OfficialCase(**fields) for fields in official_enclosing.cases_for(operator, dialect, spec)]
    return tuple(out)


def _value(x: Any, declared: Any) -> Any:
    """A data set's value as opconform holds it: a sequence (a list in the data set), an optional
    (its value or None) or a map (a dict) as the container of the graph's declared type
    (opconform.containers); a tensor as _array gives it."""
    from opconform import containers
    from opconform.generator import value_protos

    type_text = value_protos.type_string(declared)
    if type_text is None or not containers.is_container_type(type_text):
        return _array(x)
    return containers.from_python(_arrays_in(x), type_text)


def _arrays_in(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_arrays_in(i) for i in x]
    return x if x is None or isinstance(x, dict) else _array(x)


def _array(x: Any) -> Any:
    """Data sets hold NumPy arrays, except where NumPy once had no dtype for the type (Cast's
    float8/int4 cases): there they hold TensorProtos, which onnx converts to ml_dtypes arrays."""
    import onnx
    from onnx import numpy_helper

    return numpy_helper.to_array(x) if isinstance(x, onnx.TensorProto) else x


def spec_for(operator: str, opset: int, dialect: str = "onnx") -> SpecVersion | None:
    """The spec version in force at this opset of the dialect's domain, if the library has it."""
    try:
        spec = specs.load_spec(dialect, operator)
    except KeyError:
        return None
    usable = [v for v in spec.versions if v.since <= opset]
    return max(usable, key=lambda v: v.since) if usable else None


def run(case: OfficialCase) -> OfficialResult:
    from opconform import oracle

    spec = spec_for(case.operator, case.opset, case.dialect)
    if spec is None:
        return OfficialResult(case, None, False,
                              f"no {case.dialect} spec version of {case.operator} in force at opset {case.opset}")
    unreadable = [v.reason for v in case.attributes.values() if isinstance(v, UnreadableBody)]
    if unreadable:
        return OfficialResult(case, spec.id, False, f"body not evaluable: {unreadable[0]}")
    try:
        with np.errstate(all="ignore"):
            # a variadic output port (Split) has as many outputs as the node names
            count = max(case.outputs_requested) + 1 if spec.outputs and spec.outputs[-1].variadic else None
            got = oracle.evaluate(spec, list(case.inputs), case.attributes, output_count=count)
    except Exception as e:  # a failing oracle is a result to report, whatever it raised
        return OfficialResult(case, spec.id, False, f"oracle raised {type(e).__name__}: {e}")
    # the official case's own tolerance; everything else (NaN, signed zero...) as the runner judges
    rules = compare.Rules(Tolerance(case.rtol, case.atol), spec.signed_zero)
    for k, exp in zip(case.outputs_requested, case.expected):
        found = compare.check(got[k], exp, rules)
        if found is not None and not (found.kind == "values" and spec.outputs[k].compare == "judged"):
            return OfficialResult(case, spec.id, False, f"{found.about(f'output {spec.outputs[k].name}')} [{case.name}]")
    if oracle.judged(spec):  # a random output: the official outputs judged as a backend's would be
        why = oracle.judge(spec, list(case.inputs), case.attributes, None,
                           {spec.outputs[k].name: exp for k, exp in zip(case.outputs_requested, case.expected)})
        if why:
            return OfficialResult(case, spec.id, False, f"{why} [{case.name}]")
    return OfficialResult(case, spec.id, True, "")


def check_operator(operator: str, dialect: str = "onnx") -> list[OfficialResult]:
    return [run(c) for c in cases_for(operator, dialect)]
