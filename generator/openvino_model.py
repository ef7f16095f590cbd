"""An openvino.Model (one node) for a case, built from the native opset of the spec version.

The generic mapping: module `openvino.opset<since>`, function = snake_case of the operator name
(GatherND -> gather_nd), inputs positionally (Parameters with dynamic dimensions, constant ports
as Constants), attributes as keyword arguments with their defaults filled in. An operator whose
Python function does not follow that mapping gets a small adapter in `ADAPTERS`.
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from opconform import dtypes
from opconform.generator import onnx_model
from opconform.generator.openvino_factories import ADAPTERS, FUNCTION_NAMES, call as _call, factory, function_name  # noqa: F401
from opconform.model import Case, SpecVersion

__all__ = ["build", "factory", "function_name", "ov_type", "constant", "ADAPTERS", "FUNCTION_NAMES", "PARAMETER_NAMES", "VALUE_SPELLINGS"]

# operator name -> {IR attribute name: the factory's parameter name}, where they differ
PARAMETER_NAMES = {"Clamp": {"min": "min_value", "max": "max_value"}, "Broadcast": {"mode": "broadcast_spec"}}
# (operator, attribute) -> {the document's spelling of a value: OpenVINO's}, where they differ
# (OneHot-16's text says ignore-negative, OpenVINO's enum is ignore_negative: the spec's erratum)
VALUE_SPELLINGS = {("OneHot", "negative_indices_mode"): {"ignore-negative": "ignore_negative"}}


def _opset_with(spec: SpecVersion) -> Any:
    """openvino.opset<since>, or the first later opset module whose factory builds the operator:
    the Python modules lag the C++ opsets (Asinh-3's asinh() is in openvino.opset4)."""
    first = importlib.import_module(f"openvino.opset{spec.since}")
    if spec.operator in ADAPTERS:
        return first
    found = []
    for n in range(spec.since, 17):
        try:
            module = importlib.import_module(f"openvino.opset{n}")
        except ImportError:
            continue
        fn = factory(module, spec.operator)
        if fn is None:
            continue
        # openvino.opset4.range is Range-1's factory (opset1.ops); Range-4's is opset4.ops.range,
        # exported from openvino.opset16: the function defined for this version wins
        if getattr(fn, "__module__", "") == f"openvino.opset{spec.since}.ops":
            return module
        found.append(module)
    return found[0] if found else first


def ov_type(name: str):
    import openvino as ov

    t = dtypes.get(name)
    if t.openvino is None:
        raise ValueError(f"element type {name} has no OpenVINO type")
    return getattr(ov.Type, t.openvino)


def constant(x: np.ndarray, opset: Any):
    """An OpenVINO Constant holding `x` bit for bit (types NumPy lacks go through their bits)."""
    import openvino as ov

    name = dtypes.name_of(x.dtype)
    if x.size == 0:  # opset.constant refuses empty data ("Cannot create an empty Constant")
        return ov.op.Constant(ov_type(name), ov.Shape(list(x.shape)), [])
    if x.dtype.kind in "biuf" and x.dtype.isnative and name in ("float32", "float64", "float16", "int8", "int16",
                                                                 "int32", "int64", "uint8", "uint16", "uint32",
                                                                 "uint64", "bool"):
        return opset.constant(x)
    if name == "string":
        text = np.array([str(s) for s in x.reshape(-1)]).reshape(x.shape)
        # through a Tensor: the factories before opset15 take no str array (opset3.constant: "Unidentified data
        # type"), and opset15's and later ones die of std::bad_alloc on a string of 15 characters or more
        return ov.op.Constant(ov.Tensor(text))
    tensor = ov.Tensor(ov_type(name), ov.Shape(list(x.shape)))
    raw = np.ascontiguousarray(x).reshape(-1).view(np.uint8)  # flat first: a 0-d array cannot change its itemsize
    if name in ("uint4", "int4", "float4e2m1"):  # one element a byte in NumPy, two a byte in OpenVINO (the first in the low half)
        nibbles = np.concatenate([raw & 0xF, np.zeros(raw.size % 2, np.uint8)])
        raw = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
    tensor.data.reshape(-1).view(np.uint8)[:] = raw
    return ov.op.Constant(tensor)


def build(spec: SpecVersion, case: Case):
    """The openvino.Model of `case`: requested outputs only, Parameters named after the ports."""
    import openvino as ov

    if spec.dialect != "openvino":
        raise ValueError(f"{spec.id}: openvino_model builds OpenVINO-dialect specs only; use onnx_model for ONNX")
    opset = _opset_with(spec)
    constant_flags = list(case.constant_inputs) + [False] * (len(case.inputs) - len(case.constant_inputs))
    params, args = [], []
    for i, (x, const) in enumerate(zip(case.inputs, constant_flags)):
        port = spec.inputs[min(i, len(spec.inputs) - 1)]
        if x is None or (port.state and not const):  # a variable's value is set through the state API, not fed
            args.append(None)
            continue
        if const:
            args.append(constant(x, opset))
        else:
            name = port.name if not port.variadic else f"{port.name}_{i - spec.inputs.index(port)}"
            p = opset.parameter(ov.PartialShape.dynamic(x.ndim), ov_type(dtypes.name_of(x.dtype)), name=name)
            params.append(p)
            args.append(p)
    while args and args[-1] is None:
        args.pop()
    if spec.inputs and spec.inputs[-1].variadic:  # a variadic input is one list argument (Concat's)
        first = len(spec.inputs) - 1
        args = args[:first] + [args[first:]]
    renamed = PARAMETER_NAMES.get(spec.operator, {})
    attributes = {renamed.get(k, k): VALUE_SPELLINGS.get((spec.operator, k), {}).get(v, v) if isinstance(v, str) else _plain(v)
                  for k, v in spec.resolved_attributes(case.attributes).items()}
    adapter = ADAPTERS.get(spec.operator)
    if adapter is not None:
        node = adapter(opset, args, attributes)
    else:
        fn = factory(opset, spec.operator)
        if fn is None:
            raise NotImplementedError(f"{spec.id}: openvino.opset{spec.since} has no {function_name(spec.operator)}(); add an adapter")
        node = _call(fn, args, attributes)
    outputs = []
    for j, (k, name) in enumerate(onnx_model.output_slots(spec, case)):  # node output j is slot j
        if name and not spec.outputs[k].state:  # a variable's value is read through the state API
            out = node.output(j)
            out.get_tensor().set_names({name})
            outputs.append(out)
    outputs += openvino_state_adapters.extra_results(node)  # after the case's: no slot reads them
    sinks = openvino_state_adapters.sinks(node)  # a variable's Assign is a sink, reached from no result
    model = ov.Model(outputs, sinks, params, f"{spec.operator}_{spec.since}") if sinks else \
        ov.Model(outputs, params, f"{spec.operator}_{spec.since}")
    # OpenVINO numbers unnamed nodes from a process-wide counter; fixed names keep saved IR
    # byte-identical from run to run
    for k, op in enumerate(model.get_ordered_ops()):
        if op.get_type_name() != "Parameter":
            op.set_friendly_name(f"{op.get_type_name()}_{k}")
    return model


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


# adapters of operations whose factories need more than the generic call, registered on import
from opconform.generator import openvino_sparse_adapters  # noqa: E402,F401
from opconform.generator import openvino_detection_adapters  # noqa: E402,F401
from opconform.generator import openvino_pool_adapters  # noqa: E402,F401
from opconform.generator import openvino_recurrent_adapters  # noqa: E402,F401
from opconform.generator import openvino_node_factory_adapters  # noqa: E402,F401
from opconform.generator import openvino_subgraph_adapters  # noqa: E402,F401
from opconform.generator import openvino_nms_adapters  # noqa: E402,F401
from opconform.generator import openvino_binary_adapters  # noqa: E402,F401
from opconform.generator import openvino_state_adapters  # noqa: E402
from opconform.generator import openvino_constant_adapter  # noqa: E402,F401
