"""What a case is, in words and in the result line's own fields: the parts of a result that depend
on the spec version and the case alone, never on the backend. They are computed once, when the
case is encoded at generation (plan.encode_case), and kept in the case cache beside its JSON, so
that no worker recomputes them for every backend and every run.

    describe_call(spec, case) -> 'GatherND-13(data: float32[2,3], indices: int64[2,2]; batch_dims=1)'
    case_fields(spec, case)   -> the case's fields of Result.extra (label, element types, shapes, ...)
    Described(call, fields)   -> both, the fields as compact JSON to splice into a result line
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from opconform import containers
from opconform.compare import short, type_name
from opconform.model import Case, SpecVersion, _jsonable


@dataclass(frozen=True)
class Described:
    call: str  # describe_call(spec, case)
    fields: bytes  # case_fields(spec, case) as a compact JSON object


def describe(spec: SpecVersion, case: Case) -> Described:
    inputs = _inputs(case)
    fields = case_fields(spec, case, inputs)
    return Described(describe_call(spec, case, inputs), json.dumps(fields, separators=(",", ":")).encode())


def describe_call(spec: SpecVersion, case: Case, inputs: list | None = None) -> str:
    """'GatherND-13(data: float32[2,3], indices: int64[2,2]; batch_dims=1)': what was called, briefly.
    inputs: each input's (type name, shape) or container description, where the caller has them."""
    inputs = _inputs(case) if inputs is None else inputs
    parts = []
    for port, x in zip(_input_names(spec, len(case.inputs)), inputs):
        if x is None:
            parts.append(f"{port}: absent")
        elif isinstance(x, str):
            parts.append(f"{port}: {x}")
        else:
            parts.append(f"{port}: {x[0]}[{','.join(map(str, x[1]))}]")
    attrs = "; " + ", ".join(f"{k}={short(v)}" for k, v in sorted(case.attributes.items())) if case.attributes else ""
    return f"{spec.operator}-{spec.since}({', '.join(parts)}{attrs})"


def case_fields(spec: SpecVersion, case: Case, inputs: list | None = None) -> dict[str, Any]:
    """The case's own fields of a result's `extra`: what reports group and filter by."""
    inputs = _inputs(case) if inputs is None else inputs
    return {
        "label": case.label,
        "expected_kind": case.expected.kind,
        "relation": case.expected.relation,
        "attributes": _jsonable(spec.resolved_attributes(case.attributes)),
        "dtypes": [None if x is None else type_of(v) if isinstance(x, str) else x[0] for x, v in zip(inputs, case.inputs)],
        "shapes": [None if x is None else list(np.shape(v)) if isinstance(x, str) else list(x[1])
                   for x, v in zip(inputs, case.inputs)],
        "outputs_requested": [p.name for p, asked in zip(spec.outputs, case.outputs_requested) if asked],
    }


def _input_names(spec: SpecVersion, n: int) -> list[str]:
    names = [p.name for p in spec.inputs]
    if spec.inputs and spec.inputs[-1].variadic:
        last = names.pop()
        names += [f"{last}[{i}]" for i in range(n - len(names))]
    return names + [f"input{i}" for i in range(len(names), n)]


def type_of(x: Any) -> str:
    """An input's element type name, or a container's type (`seq(tensor(float))`)."""
    return containers.type_of(x) if containers.is_container(x) else type_name(np.asarray(x).dtype)


def _inputs(case: Case) -> list:
    return [None if x is None else _type_and_shape(x) for x in case.inputs]


def _type_and_shape(a: Any) -> tuple[str, tuple[int, ...]] | str:
    """A tensor's (element type name, shape); a container's description."""
    if containers.is_container(a):
        return containers.describe(a)
    a = np.asarray(a)
    return type_name(a.dtype), a.shape
