"""Every ONNX spec version agrees with the operator schema onnx itself ships (onnx.defs):
the since-version, element types per port (through type constraints), which ports share a
type constraint, attribute names, types, required flags and defaults, and input/output
arity with optional and variadic flags.

onnx.defs has no value ranges or shape relations (those are prose); the spec files add them.
Non-tensor types a schema admits (seq(...), optional(...)) are outside the spec language and
are ignored here.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnx.defs
import pytest
from onnx import helper

from helpers_library import loadable_specs
from opconform import containers, dtypes
from opconform.model import Port, SpecVersion

_OPTION = onnx.defs.OpSchema.FormalParameterOption


def _onnx_versions() -> list[SpecVersion]:
    return [v for s in loadable_specs("onnx") for v in s.versions]


def _element_types(schema, param) -> set[str]:
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    strs = constraints.get(param.type_str, [param.type_str])
    return {dtypes.BY_ONNX_STR[s].name for s in strs if s in dtypes.BY_ONNX_STR} | {
        containers.canonical(s) for s in strs if containers.is_container_type(s) and _known(s)}


def _known(type_str: str) -> bool:
    """Whether every element type of a sequence, optional or map type string is one opconform names."""
    try:
        containers.canonical(type_str)
        return True
    except containers.TypeStringError:
        return False


def _port_problems(schema, params, ports: tuple[Port, ...], kind: str) -> list[str]:
    problems = []
    if len(params) != len(ports):
        problems.append(f"{kind}: onnx has {len(params)} ({[p.name for p in params]}), spec has {len(ports)} ({[p.name for p in ports]})")
    for k, (param, port) in enumerate(zip(params, ports)):
        where = f"{kind}[{k}] ({port.name}; onnx {param.name})"
        want = _element_types(schema, param)
        have = set(port.types)
        if not any(containers.is_container_type(t) for t in have):
            # a spec that declares no sequence or optional type for a port takes tensors only (its
            # notes say so); one that declares some declares every one onnx lists
            want = {t for t in want if not containers.is_container_type(t)}
        if want != have:
            problems.append(f"{where}: element types differ: onnx only {sorted(want - have)}, spec only {sorted(have - want)}")
        optional = param.option == _OPTION.Optional
        variadic = param.option == _OPTION.Variadic
        if optional != port.optional:
            problems.append(f"{where}: onnx optional={optional}, spec optional={port.optional}")
        if variadic != port.variadic:
            problems.append(f"{where}: onnx variadic={variadic}, spec variadic={port.variadic}")
        elif variadic and param.min_arity != port.min_arity:
            problems.append(f"{where}: onnx min_arity={param.min_arity}, spec min_arity={port.min_arity}")
    return problems


def _sharing_problems(schema, spec: SpecVersion) -> list[str]:
    """Ports that share a type constraint in onnx must share a type variable in the spec (the
    spec derives its 'same element type' relations from that), and the other way round."""
    constraints = {c.type_param_str for c in schema.type_constraints}
    params = list(schema.inputs) + list(schema.outputs)
    onnx_var = [p.type_str if p.type_str in constraints else None for p in params]
    # a heterogeneous variadic port's values each take any type of its constraint, so sharing says
    # nothing either way (SequenceMap's out_sequence is S, yet each has its body output's type)
    free = [not getattr(p, "is_homogeneous", True) for p in params]
    ports = list(spec.inputs) + list(spec.outputs)
    spec_var = [p.type_var for p in ports]
    problems = []
    n = min(len(onnx_var), len(spec_var))
    for i in range(n):
        for j in range(i + 1, n):
            o = onnx_var[i] is not None and onnx_var[i] == onnx_var[j]
            s = spec_var[i] is not None and spec_var[i] == spec_var[j]
            if o != s and not (o and _single_type(schema, onnx_var[i])) and not (free[i] or free[j]):
                problems.append(f"ports {ports[i].name} and {ports[j].name}: onnx shares a type constraint={o}, spec shares a type_var={s}")
    return problems


def _single_type(schema, constraint: str) -> bool:
    # a constraint allowing one type ties nothing: 'types: [int64]' on both ports says the same
    return any(c.type_param_str == constraint and len(c.allowed_type_strs) == 1 for c in schema.type_constraints)


def _default(attr) -> object:
    if attr.default_value.type == onnx.AttributeProto.UNDEFINED:
        return None
    v = helper.get_attribute_value(attr.default_value)
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, list):
        return [x.decode("utf-8") if isinstance(x, bytes) else x for x in v]
    return v


def _same_default(onnx_default, spec_default, attr_type: str) -> bool:
    if onnx_default is None or spec_default is None:
        return onnx_default is None and spec_default is None
    if attr_type in ("float", "floats"):  # onnx stores defaults as float32
        a = np.asarray(onnx_default, dtype=np.float32)
        b = np.asarray(spec_default, dtype=np.float32)
        return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    if attr_type in ("ints", "strings"):
        return list(onnx_default) == list(spec_default)
    return onnx_default == spec_default


def _attribute_problems(schema, spec: SpecVersion) -> list[str]:
    problems = []
    theirs = dict(schema.attributes)
    ours = {a.name: a for a in spec.attributes}
    for name in sorted(set(theirs) - set(ours)):
        problems.append(f"attribute {name}: in onnx, missing from the spec")
    for name in sorted(set(ours) - set(theirs)):
        problems.append(f"attribute {name}: in the spec, not in onnx")
    for name in sorted(set(ours) & set(theirs)):
        t, a = theirs[name], ours[name]
        ttype = t.type.name.lower()
        if ttype != a.type:
            problems.append(f"attribute {name}: onnx type {ttype}, spec type {a.type}")
        if bool(t.required) != a.required:
            problems.append(f"attribute {name}: onnx required={bool(t.required)}, spec required={a.required}")
        if not _same_default(_default(t), a.default, a.type):
            problems.append(f"attribute {name}: onnx default {_default(t)!r}, spec default {a.default!r}")
    return problems


@pytest.mark.parametrize("spec", _onnx_versions(), ids=lambda v: v.id)
def test_spec_agrees_with_onnx_defs(spec: SpecVersion):
    domain = spec.domain or ""
    try:
        schema = onnx.defs.get_schema(spec.operator, spec.since, domain)
    except onnx.defs.SchemaError:
        pytest.fail(f"{spec.id}: onnx.defs has no schema of {spec.operator} at opset {spec.since} (domain {domain!r})")
    problems = []
    if schema.since_version != spec.since:
        problems.append(f"since: the version in force at opset {spec.since} is since {schema.since_version}")
    problems += _port_problems(schema, schema.inputs, spec.inputs, "inputs")
    problems += _port_problems(schema, schema.outputs, spec.outputs, "outputs")
    problems += _sharing_problems(schema, spec)
    problems += _attribute_problems(schema, spec)
    assert not problems, f"{spec.id} disagrees with onnx.defs:\n  " + "\n  ".join(problems)
