"""An ONNX model (one node) for a case: what backends load and what `opconform generate` writes.

Inputs get symbolic dimensions, so one model serves every case with the same signature;
outputs get an element type and symbolic dimensions (onnx.checker requires a shape field).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Hashable, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from opconform import containers, dtypes, specs, tensors
from opconform.generator import value_protos
from opconform.generator import enclosing_graph, onnx_body
from opconform.graphs import Graph
from opconform.model import Case, Port, SpecVersion
from opconform.specs import expr

__all__ = ["build", "signature", "input_names", "output_names", "output_slots", "output_types", "to_tensor_proto"]


def input_names(spec: SpecVersion, case: Case) -> list[str]:
    """Graph input names in node order; "" for an absent optional input. A variadic port's
    inputs are named <port>_0, <port>_1, ...; a body standing for the enclosing graph (Gradient's
    forward) names them (generator/enclosing_graph.py)."""
    enclosing = enclosing_graph.of(spec, case)
    if enclosing is not None:
        return [v.name for v in enclosing[1].inputs][:len(case.inputs)]
    names = []
    for i, x in enumerate(case.inputs):
        port = _port_of_input(spec, i)
        if x is None:
            names.append("")
        elif port.variadic:
            names.append(f"{port.name}_{i - spec.inputs.index(port)}")
        else:
            names.append(port.name)
    return names


def output_slots(spec: SpecVersion, case: Case) -> list[tuple[int, str]]:
    """(spec output port index, node output name) for each node output in order; the name is ""
    for an optional output not asked (trailing ones dropped). A variadic port (the last one)
    expands to <port>_0 .. <port>_{n-1}. Node output j is expected output j: the oracle returns
    one array per slot, in the same order."""
    slots: list[tuple[int, str]] = []
    for k, (port, asked) in enumerate(zip(spec.outputs, case.outputs_requested)):
        if port.variadic:
            slots.extend((k, f"{port.name}_{m}") for m in range(variadic_output_count(spec, case)))
        else:
            slots.append((k, port.name if asked else ""))
    while slots and slots[-1][1] == "":
        slots.pop()
    return slots


def variadic_output_count(spec: SpecVersion, case: Case) -> int:
    """How many node outputs the variadic output port stands for: from the expected outputs when
    known, else from the port's `arity` expression (Split: the length of `split` or num_outputs),
    else 1."""
    if case.expected.alternatives:
        return max(len(case.expected.alternatives[0].outputs) - (len(spec.outputs) - 1), 0)
    arity = spec.outputs[-1].arity
    if arity is None:
        return 1
    try:
        return int(expr.evaluate(arity, specs.environment(spec, list(case.inputs), dict(case.attributes))))
    except (expr.ExprError, TypeError, ValueError):
        return 1  # a must-refuse case may leave it unevaluable: one output, as without an arity


def output_names(spec: SpecVersion, case: Case) -> list[str]:
    """Node output names (see output_slots)."""
    return [name for _, name in output_slots(spec, case)]


def _port_of_input(spec: SpecVersion, i: int) -> Port:
    return spec.inputs[min(i, len(spec.inputs) - 1)]


def output_types(spec: SpecVersion, case: Case) -> list[tuple[str, int] | None]:
    """(element type, rank) of each output slot (see output_slots); None where not requested.

    The element type follows the spec (type variable, attribute, fixed type); the rank comes
    from the expected outputs when known, else from ONNX shape inference (valid cases), else 0
    (an invalid case: nothing defines its output rank)."""
    inferred = None
    expected = case.expected.alternatives[0].outputs if case.expected.alternatives else None
    out: list[tuple[str, int] | None] = []
    for j, (k, name) in enumerate(output_slots(spec, case)):
        if not name:
            out.append(None)
            continue
        if expected is not None and j < len(expected):
            out.append((containers.type_of(expected[j]), np.ndim(expected[j]) if isinstance(expected[j], np.ndarray) else 0))
            continue
        if inferred is None:
            inferred = _inferred_outputs(spec, case)
        port = spec.outputs[k]
        etype = _declared_type(spec, case, port)
        rank = inferred.get(name, (None, 0))[1]
        out.append((etype or inferred.get(name, (port.types[0], 0))[0], rank))
    return out


def _declared_type(spec: SpecVersion, case: Case, port: Port) -> str | None:
    if port.type_from_attribute:
        value = spec.resolved_attributes(case.attributes).get(port.type_from_attribute)
        return port.type_map.get(value)
    if port.type_var:
        for p, x in zip(spec.inputs, case.inputs):
            if p.type_var == port.type_var and x is not None:
                return containers.type_of(x)
    return port.types[0] if len(port.types) == 1 else None


def _inferred_outputs(spec: SpecVersion, case: Case) -> dict[str, tuple[str, int]]:
    """Output (type, rank) by ONNX shape inference, for cases that satisfy every relation; {}
    otherwise. Inference is not run on invalid cases: onnx 1.23's inference crashes the process
    (SIGSEGV) on some of them, e.g. GatherND with batch_dims = -3."""
    from opconform import specs

    if any(s.state in ("broken", "unevaluable") for s in specs.check_all(spec, list(case.inputs), dict(case.attributes))):
        return {}
    model = _assemble(spec, case, None, [None] * len(output_slots(spec, case)), concrete=True)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # inference refuses invalid cases in many ways; the rank then stays unknown
        return {}
    found = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type.tensor_type
        if vi.type.HasField("tensor_type") and t.elem_type and t.HasField("shape"):
            found[vi.name] = (dtypes.BY_ONNX[t.elem_type].name, len(t.shape.dim))
        elif not vi.type.HasField("tensor_type") and value_protos.type_string(vi.type) is not None:
            found[vi.name] = (value_protos.type_string(vi.type), 0)  # a sequence, optional or map: no rank
    return found


def _opset(spec: SpecVersion, opset: int | None, case: Case | None = None) -> int:
    """The model's opset: the spec version's unless given; with a graph attribute, at least the one its
    body's nodes are written for (If-1 at opset 10: its body's Add is Add-7, not Add-1)."""
    chosen = spec.since if opset is None else opset
    body = None if case is None else onnx_body.opset_of(dict(case.attributes))
    return chosen if body is None else max(chosen, body)


def build(spec: SpecVersion, case: Case, opset: int | None = None) -> onnx.ModelProto:
    """The one-node model of `case`: opset of the spec version unless given, lowest IR version
    for that opset, symbolic input dims, typed outputs, only requested outputs, constant inputs
    as initializers, absent optional inputs/outputs as ""."""
    return _assemble(spec, case, opset, output_types(spec, case))


def _assemble(spec: SpecVersion, case: Case, opset: int | None, outs: Sequence[tuple[str, int] | None],
              concrete: bool = False) -> onnx.ModelProto:
    """`concrete`: input dims as numbers, so shape inference can find output ranks."""
    in_names = input_names(spec, case)
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    graph_inputs, initializers = [], []
    for name, x, const in zip(in_names, case.inputs, constant):
        if x is None:
            continue
        if containers.is_container(x):  # no initializer holds one: always a graph input
            graph_inputs.append(helper.make_value_info(name, value_protos.type_proto(x.type)))
        elif const:
            initializers.append(to_tensor_proto(x, name))
        else:
            shape = list(x.shape) if concrete else [f"{name}_d{k}" for k in range(x.ndim)]
            graph_inputs.append(helper.make_tensor_value_info(name, _onnx_type(x), shape))
    graph_outputs = []
    for (_, name), t in zip(output_slots(spec, case), outs):
        if t is None:
            continue
        etype, rank = t
        if containers.is_container_type(etype):
            graph_outputs.append(helper.make_value_info(name, value_protos.type_proto(etype)))
            continue
        graph_outputs.append(
            helper.make_tensor_value_info(name, dtypes.get(etype).onnx, [f"{name}_d{k}" for k in range(rank)])
        )
    trimmed = list(in_names)
    # an empty optional input before a variadic port keeps its place (Loop's cond: M, "", with no carried value)
    fixed = len(spec.inputs) - 1 if spec.inputs and spec.inputs[-1].variadic else 0
    while len(trimmed) > fixed and trimmed[-1] == "":
        trimmed.pop()
    enclosing = enclosing_graph.of(spec, case)
    forward, extra_opsets = [], []
    if enclosing is not None:  # its nodes before the node, which reads tensors by name
        slot, body = enclosing
        forward = enclosing_graph.forward_nodes(body, _attr_value)
        trimmed = enclosing_graph.node_inputs(spec, case, slot)
        case = dataclasses.replace(case, attributes={k: v for k, v in case.attributes.items() if k != slot})
        extra_opsets = [helper.make_opsetid("", body.opset)]
    attrs = {k: _attr_value(v, _declared(spec, k)) for k, v in sorted(case.attributes.items())}
    empty = {k for k, v in attrs.items() if isinstance(v, (list, tuple)) and not v and _declared(spec, k) in _LIST_TYPES}
    node = helper.make_node(spec.operator, trimmed, output_names(spec, case), domain=spec.domain or "",
                            **{k: v for k, v in attrs.items() if k not in empty})
    for k in sorted(empty):  # an empty list has no type helper can infer: the spec's
        node.attribute.append(helper.make_attribute(k, [], attr_type=_LIST_TYPES[_declared(spec, k)]))
    graph = helper.make_graph(forward + [node], _graph_name(spec), graph_inputs, graph_outputs, initializer=initializers)
    opsets = [helper.make_opsetid(spec.domain or "", _opset(spec, opset, case))] + extra_opsets
    model = helper.make_model(graph, opset_imports=opsets, producer_name="opconform")
    model.ir_version = helper.find_min_ir_version_for(opsets, ignore_unknown=True)
    return model


def _graph_name(spec: SpecVersion) -> str:
    return f"{spec.operator}_{spec.since}"


def _onnx_type(x: np.ndarray) -> int:
    return dtypes.get(dtypes.name_of(x.dtype)).onnx


_LIST_TYPES = {"ints": onnx.AttributeProto.INTS, "floats": onnx.AttributeProto.FLOATS, "strings": onnx.AttributeProto.STRINGS}


def _declared(spec: SpecVersion, name: str) -> str | None:
    return next((a.type for a in spec.attributes if a.name == name), None)


def _attr_value(v: Any, declared: str | None = None) -> Any:
    """`declared`: the spec's attribute type; a float list written with integers ([1, 0]) is
    still FLOATS, as onnx.helper would otherwise store INTS."""
    if isinstance(v, Graph):
        return onnx_body.to_proto(v, _attr_value)
    if declared == "floats" and isinstance(v, (list, tuple)):
        return [float(x) for x in v]
    if declared == "float" and isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return float(v)
    if declared == "type_proto":  # a type string (Optional's type)
        return value_protos.type_proto(v)
    if isinstance(v, np.ndarray):
        return to_tensor_proto(v, "value")
    if isinstance(v, np.generic):
        return v.item()
    return v


def to_tensor_proto(x: np.ndarray, name: str) -> onnx.TensorProto:
    """A TensorProto holding `x` bit for bit (strings as UTF-8 bytes)."""
    x = np.asarray(x)
    etype = dtypes.name_of(x.dtype)
    if etype == "string":
        flat = [s.encode("utf-8", "surrogateescape") for s in tensors.string_elements(x, f"tensor {name!r}")]
        return helper.make_tensor(name, onnx.TensorProto.STRING, x.shape, flat)
    return numpy_helper.from_array(x, name)


def signature(spec: SpecVersion, case: Case) -> Hashable:
    """What the built model depends on: cases with equal signatures share one model. Spec id,
    explicit attributes, per input (element type, rank) or None, requested outputs, the values of
    constant inputs, and the declared (element type, rank) of every output."""
    constant = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    per_input = tuple(
        None if x is None else (containers.type_of(x), np.ndim(x) if isinstance(x, np.ndarray) else 0,
                                containers.digest(x) if c else None)
        for x, c in zip(case.inputs, constant)
    )
    attrs = json.dumps({k: _jsonable(v) for k, v in case.attributes.items()}, sort_keys=True)
    return (spec.id, attrs, per_input, tuple(output_names(spec, case)), tuple(output_types(spec, case)))


def _jsonable(v: Any) -> Any:
    if isinstance(v, Graph):
        return v.to_json()
    if isinstance(v, np.ndarray):
        return tensors.encode(v)
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v
