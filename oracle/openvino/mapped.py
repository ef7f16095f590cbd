"""The oracle of an OpenVINO operation that computes what an ONNX operator computes (`maps_to`).

The spec states the mapping as data: the ONNX spec version, its inputs and attributes as
expressions of the OpenVINO inputs and attributes, and which ONNX output each OpenVINO output is.
This module evaluates those expressions and runs the ONNX operator module on them, so the two
dialects share one kernel; what differs (attribute names, defaults, inputs that ONNX takes as
attributes, broadcasting modes OpenVINO narrows with relations of its own) lives in the spec.

Outputs whose element type an OpenVINO attribute picks (ShapeOf's output_type) are converted to
that type; every other output keeps the ONNX kernel's type, which the OpenVINO port admits.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from opconform import dtypes, specs
from opconform.model import Attribute, RelationBroken, SpecVersion
from opconform.specs import expr
from opconform.oracle.kernels.fp_extremes import extremes_are_data

__all__ = ["attribute_texts", "onnx_arguments", "run", "target"]


def target(spec: SpecVersion) -> SpecVersion:
    """The version `spec` maps onto."""
    if spec.maps_to is None:
        raise ValueError(f"{spec.id} has no maps_to")
    return specs.load(spec.maps_to.spec)


def _as_attribute(a: Attribute | None, v: Any) -> Any:
    """A relation-language value as the attribute type the ONNX module expects."""
    if v is None or a is None:
        return v
    if a.type in ("ints", "floats"):
        cast = int if a.type == "ints" else float
        return [cast(x) for x in np.asarray(v).reshape(-1)]
    if a.type == "int":
        return int(np.asarray(v).reshape(-1)[0]) if np.ndim(v) else int(v)
    if a.type == "float":
        return float(v)
    if a.type == "string":
        return str(v)
    return v


def _typed_like_siblings(onnx: SpecVersion, texts: Sequence[str | None], args: list, ours: set[str], env: dict) -> None:
    """A computed ONNX input takes the element type of the input it shares a type variable with
    that is passed as it is (Clamp's min, from a float attribute, becomes the data's type: ONNX's
    Clip wants that), else the port's one element type (Split's split), else the one element type of
    our inputs its expression reads (OneHot's values, from on_value and off_value; the relation
    language's asarray of a tuple is int64). In place."""
    by_var = {}
    for k, text in enumerate(texts):
        port = onnx.inputs[min(k, len(onnx.inputs) - 1)]
        if text in ours and args[k] is not None and port.type_var:
            by_var.setdefault(port.type_var, args[k].dtype)
    for k, text in enumerate(texts):
        port = onnx.inputs[min(k, len(onnx.inputs) - 1)]
        if text is None or text in ours or args[k] is None:
            continue
        read = {np.asarray(env[n]).dtype for n in expr.names(text) & ours if env.get(n) is not None}
        # a port of one element type takes it: Split's int64 split from an int32 split_lengths, whose
        # computed -1 length may not fit int32
        fixed = dtypes.numpy_dtype(port.types[0]) if not port.type_var and len(port.types) == 1 else None
        target = fixed or by_var.get(port.type_var) or (read.pop() if len(read) == 1 else None)
        if target is not None:
            args[k] = args[k].astype(target)


def attribute_texts(spec: SpecVersion, onnx: SpecVersion) -> dict[str, str]:
    """ONNX attribute -> the expression of ours that sets it: the mapping's, and an attribute both
    versions name passed as it is unless the mapping spells it."""
    ours = {a.name for a in spec.attributes}
    texts = {a.name: a.name for a in onnx.attributes if a.name in ours}
    texts.update(spec.maps_to.attributes)
    return texts


def onnx_arguments(spec: SpecVersion, inputs: Sequence[Any], attributes: dict) -> tuple[list, dict]:
    """The ONNX inputs and attributes (only those the mapping sets) of an OpenVINO case."""
    m = spec.maps_to
    onnx = target(spec)
    env = specs.environment(spec, list(inputs), attributes)
    if m.inputs is None:
        args = list(inputs)
    else:
        args = [None if text is None else expr.compiled(text)(env) for text in m.inputs]
        args = [None if a is None else np.asarray(a) for a in args]
        _typed_like_siblings(onnx, m.inputs, args, {p.name for p in spec.inputs}, env)
    by_name = {a.name: a for a in onnx.attributes}
    attrs = {name: _as_attribute(by_name.get(name), expr.compiled(text)(env))
             for name, text in attribute_texts(spec, onnx).items()}
    return args, {k: v for k, v in attrs.items() if v is not None}


def _through_float64(onnx: SpecVersion, args: list) -> np.dtype | None:
    """The integer type of the inputs when the ONNX version admits no integers there but float64
    (OpenVINO's math functions take 'any numeric type'): they are then computed in float64."""
    for k, a in enumerate(args):
        if a is None or a.dtype.kind not in "iu":
            continue
        port = onnx.inputs[min(k, len(onnx.inputs) - 1)]
        if dtypes.name_of(a.dtype) not in port.types and "float64" in port.types:
            return a.dtype
    return None


def _to_integer(spec: SpecVersion, y: np.ndarray, dtype: np.dtype, mode: str) -> np.ndarray:
    """A real result as the integer type: rounded half away from zero (C's round) or truncated;
    a result the type cannot hold (NaN, infinite, out of range) is an outcome no text gives."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        r = np.trunc(y + np.copysign(0.5, y)) if mode == "round" else np.trunc(y)
        info = np.iinfo(dtype)
        bad = ~np.isfinite(r) | (r < info.min) | (r > float(info.max))
    if bad.any():
        raise RelationBroken(spec.id, "integer_result_representable", "undefined",
                             f"{spec.operator} of an integer: a result the integer type cannot hold (NaN, inf or out of range)")
    return r.astype(dtype)


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict,
        output_count: int | None = None) -> tuple[np.ndarray, ...]:
    from opconform import oracle

    onnx = target(spec)
    args, attrs = onnx_arguments(spec, inputs, attributes)
    integer = _through_float64(onnx, args)
    if integer is not None:
        if any(a is not None and a.dtype.kind in "iu" and np.abs(a.astype(np.float64)).max(initial=0) >= 2.0 ** 53 for a in args):
            # float64 holds every integer below 2**53 only: past it the real function is not of the given value
            raise RelationBroken(spec.id, "integer_result_representable", "undefined",
                                 f"{spec.operator} of an integer past 2**53: computed on a rounded value")
        args = [a.astype(np.float64) if a is not None and a.dtype.kind in "iu" else a for a in args]
    known = {p.name for p in onnx.policies}
    extra = {} if output_count is None else {"output_count": output_count}  # a variadic output's count (Split)
    outs = oracle.module_for(onnx).run(onnx, args, oracle.stored_attributes(onnx, attrs),
                                       oracle.resolve_policies(onnx, {k: v for k, v in policies.items() if k in known}), **extra)
    if integer is not None:
        outs = [_to_integer(spec, y, integer, policies.get("integer_result", "round")) if np.asarray(y).dtype.kind == "f" else y
                for y in outs]
    names = [p.name for p in onnx.outputs]
    picked = outs if spec.maps_to.outputs is None else [outs[names.index(n)] for n in spec.maps_to.outputs]
    ports = list(spec.outputs)
    if ports and ports[-1].variadic:  # every remaining output is the variadic port's
        ports += [ports[-1]] * (len(picked) - len(ports))
    result = []
    for port, y in zip(ports, picked):
        y = np.asarray(y)
        if port.type_from_attribute is not None:
            chosen = port.type_map[str(attributes.get(port.type_from_attribute))]
            y = y.astype(dtypes.numpy_dtype(chosen))
        result.append(y)
    return tuple(result)
