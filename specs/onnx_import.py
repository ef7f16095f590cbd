"""Spec skeletons from onnx.defs, and drift between a curated spec file and onnx.defs.

`skeleton(op)` writes what onnx.defs knows about an operator as a spec document: every version in
force at some opset from `min_opset` to the latest (plus any older version asked for), with type
variables, ports (optional, variadic), attributes (type, default, required) and the source section.
Relations, open choices and examples are for a person to add; a skeleton never guesses them.

`drift(path)` compares a curated file with onnx.defs on exactly those declared facts, so the
curated parts (relations, policies, examples, text) are never touched.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import yaml

from opconform import dtypes

# A built-in guess of the family, for operators whose family is plain from the ONNX operator list.
# Operators not named here get no family; a person sets it.
_FAMILIES = {
    "elementwise_unary": (
        "Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Floor HardSigmoid HardSwish Identity "
        "IsInf IsNaN LeakyRelu Log Mish Neg Not Reciprocal Relu Round Selu Shrink Sigmoid Sign Sin Sinh "
        "Softplus Softsign Sqrt Tan Tanh ThresholdedRelu Celu Gelu BitwiseNot Swish"
    ),
    "elementwise_binary": "Add Sub Mul Div Pow Mod BitShift BitwiseAnd BitwiseOr BitwiseXor PRelu",
    "variadic": "Max Min Mean Sum",
    "comparison": "Equal Greater GreaterOrEqual Less LessOrEqual",
    "logical": "And Or Xor",
    "reduction": (
        "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum "
        "ReduceSumSquare"
    ),
    "shape": (
        "Reshape Transpose Squeeze Unsqueeze Concat Split Slice Expand Tile Flatten Pad DepthToSpace "
        "SpaceToDepth Shape Size"
    ),
    "indexing": (
        "Gather GatherElements GatherND ScatterND ScatterElements OneHot Where Compress NonZero TopK ArgMax "
        "ArgMin CumSum Trilu"
    ),
}
FAMILY_GUESS: dict[str, str] = {op: fam for fam, ops in _FAMILIES.items() for op in ops.split()}

# onnx.defs attribute types -> spec attribute types; others (sparse tensors, type protos) are skipped.
_ATTR_TYPES = {
    "FLOAT": "float", "INT": "int", "STRING": "string", "FLOATS": "floats", "INTS": "ints",
    "STRINGS": "strings", "TENSOR": "tensor", "GRAPH": "graph",
}


class ImportOnnxError(ValueError):
    """onnx.defs has no such operator, or nothing of it can be written as a spec."""


def _schemas(op: str) -> list:
    import onnx.defs

    found = [s for s in onnx.defs.get_all_schemas_with_history() if s.name == op and s.domain in ("", "ai.onnx")]
    if not found:
        raise ImportOnnxError(f"{op}: no operator of that name in the standard ONNX domain of onnx.defs")
    return sorted(found, key=lambda s: s.since_version)


def latest_opset() -> int:
    import onnx.defs

    return onnx.defs.onnx_opset_version()


def versions_in_force(op: str, min_opset: int = 13, extra_opsets: Iterable[int] = ()) -> list[int]:
    """Since-versions in force at some opset from min_opset to the latest, or at any extra opset."""
    since = [s.since_version for s in _schemas(op)]
    opsets = set(range(min_opset, latest_opset() + 1)) | set(extra_opsets)
    picked = {max((v for v in since if v <= o), default=None) for o in opsets}
    return sorted(v for v in picked if v is not None)


def _elem_type(type_str: str) -> str | None:
    t = dtypes.BY_ONNX_STR.get(type_str)
    return t.name if t is not None else None


def _text(description: str) -> str:
    return " ".join((description or "").split())


def _float32(v: float) -> float:
    # onnx stores float defaults as float32: print the shortest decimal that round-trips (0.01, not 0.0099999...)
    return float(str(np.float32(v)))


def _default(attr) -> tuple[bool, Any]:
    from onnx import helper

    d = attr.default_value
    if not d.name and d.type == 0:
        return False, None
    v = helper.get_attribute_value(d)
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    elif isinstance(v, float):
        v = _float32(v)
    elif isinstance(v, list):
        v = [x.decode("utf-8") if isinstance(x, bytes) else (_float32(x) if isinstance(x, float) else x) for x in v]
    elif not isinstance(v, int):
        return False, None  # tensor / graph defaults cannot be written as YAML scalars
    return True, v


def _version(op: str, schema) -> dict:
    notes: list[str] = []
    type_vars: dict[str, list[str]] = {}
    for tc in schema.type_constraints:
        names = [n for n in map(_elem_type, tc.allowed_type_strs) if n]
        skipped = [s for s in tc.allowed_type_strs if not _elem_type(s)]
        tensors = [s for s in skipped if s.startswith("tensor(")]
        if tensors:
            notes.append(f"type {tc.type_param_str}: skipped {', '.join(tensors)} (no opconform element type)")
        if len(skipped) > len(tensors):
            notes.append(f"type {tc.type_param_str}: skipped {len(skipped) - len(tensors)} non-tensor types (sequence, optional, map)")
        if names:
            type_vars[tc.type_param_str] = names

    def port(p, kind: str) -> dict | None:
        out: dict[str, Any] = {"name": p.name}
        if p.type_str in type_vars:
            out["type"] = p.type_str
        elif _elem_type(p.type_str):
            out["types"] = [_elem_type(p.type_str)]
        else:
            notes.append(f"{kind} {p.name}: type {p.type_str} has no opconform element type; port left out")
            return None
        opt = p.option.name
        if opt == "Optional":
            out["optional"] = True
        elif opt == "Variadic":
            out["variadic"] = True
            out["min_arity"] = int(p.min_arity)
            if not p.is_homogeneous:
                notes.append(f"{kind} {p.name}: heterogeneous variadic (entries may differ in element type)")
        text = _text(p.description)
        if text:
            out["text"] = text
        return out

    inputs = [x for x in (port(p, "input") for p in schema.inputs) if x]
    outputs = [x for x in (port(p, "output") for p in schema.outputs) if x]
    if not outputs:
        raise ImportOnnxError(f"{op}-{schema.since_version}: no output has a tensor type opconform can represent")
    attributes: dict[str, dict] = {}
    for name, a in schema.attributes.items():
        t = _ATTR_TYPES.get(a.type.name)
        if t is None:
            notes.append(f"attribute {name}: type {a.type.name} not representable; left out")
            continue
        entry: dict[str, Any] = {"type": t}
        has, value = _default(a)
        if a.required:
            entry["required"] = True
        elif has:
            entry["default"] = value
        text = _text(a.description)
        if text:
            entry["text"] = text
        attributes[name] = entry
    v: dict[str, Any] = {
        "since": schema.since_version,
        "source": {"document": f"ONNX Operators: {op}", "section": f"{op}-{schema.since_version}"},
    }
    if notes:
        v["notes"] = "; ".join(notes)
    if type_vars:
        v["type_vars"] = type_vars
    v["inputs"] = inputs
    v["outputs"] = outputs
    if attributes:
        v["attributes"] = attributes
    return v


def skeleton(op: str, min_opset: int = 13, extra_opsets: Iterable[int] = ()) -> dict:
    """The spec document onnx.defs gives for an operator (no relations, policies or examples)."""
    wanted = set(versions_in_force(op, min_opset, extra_opsets))
    schemas = [s for s in _schemas(op) if s.since_version in wanted]
    doc: dict[str, Any] = {"operator": op, "dialect": "onnx"}
    if op in FAMILY_GUESS:
        doc["family"] = FAMILY_GUESS[op]
    doc["source"] = {"document": f"ONNX Operators: {op} (onnx/docs/Operators.md)"}
    doc["versions"] = [_version(op, s) for s in schemas]
    return doc


class _Dumper(yaml.SafeDumper):
    """Block style for mappings, flow style for lists of scalars (type lists stay on one line);
    no YAML anchors, so every version reads on its own."""

    def ignore_aliases(self, data):
        return True


def _represent_list(dumper, data):
    flow = all(not isinstance(x, dict) for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _represent_dict(dumper, data):
    # example tensors ({dtype, data}) read best on one line
    flow = "dtype" in data and "data" in data
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)


def dump(doc: dict) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


# --- drift -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drift:
    operator: str
    since: int | None  # None: about the file as a whole
    what: str

    def __str__(self) -> str:
        at = f"{self.operator}-{self.since}" if self.since is not None else self.operator
        return f"{at}: {self.what}"


def _port_facts(port: dict, type_vars: dict) -> dict:
    types = type_vars.get(port["type"], []) if "type" in port else port.get("types", [])
    if "type_from_attribute" in port:
        types = list(port["type_from_attribute"]["map"].values())
    return {
        "types": sorted(set(types)),
        "optional": bool(port.get("optional", False)),
        "variadic": bool(port.get("variadic", False)),
        "min_arity": int(port.get("min_arity", 1)) if port.get("variadic") else None,
    }


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return np.float32(a) == np.float32(b)
        except (TypeError, ValueError):
            return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b


def _version_drift(op: str, mine: dict, theirs: dict) -> list[Drift]:
    since = theirs["since"]
    out: list[Drift] = []
    say = lambda what: out.append(Drift(op, since, what))  # noqa: E731
    for kind in ("inputs", "outputs"):
        a, b = mine.get(kind, []), theirs.get(kind, [])
        if [p["name"] for p in a] != [p["name"] for p in b]:
            say(f"{kind}: file has {[p['name'] for p in a]}, onnx.defs has {[p['name'] for p in b]}")
            continue
        for pa, pb in zip(a, b):
            fa, fb = _port_facts(pa, mine.get("type_vars", {})), _port_facts(pb, theirs.get("type_vars", {}))
            for key in fa:
                if fa[key] != fb[key]:
                    if key == "types":
                        extra, missing = sorted(set(fa[key]) - set(fb[key])), sorted(set(fb[key]) - set(fa[key]))
                        detail = "; ".join(x for x in (f"not in onnx.defs: {extra}" if extra else "",
                                                        f"missing: {missing}" if missing else "") if x)
                        say(f"{kind[:-1]} {pa['name']}: element types differ ({detail})")
                    else:
                        say(f"{kind[:-1]} {pa['name']}: {key} is {fa[key]} in the file, {fb[key]} in onnx.defs")
    ma, ta = mine.get("attributes", {}), theirs.get("attributes", {})
    for name in sorted(set(ma) - set(ta)):
        say(f"attribute {name}: in the file, not in onnx.defs")
    for name in sorted(set(ta) - set(ma)):
        say(f"attribute {name}: in onnx.defs, missing from the file")
    for name in sorted(set(ma) & set(ta)):
        a, b = ma[name], ta[name]
        if a["type"] != b["type"]:
            say(f"attribute {name}: type {a['type']} in the file, {b['type']} in onnx.defs")
        if bool(a.get("required")) != bool(b.get("required")):
            say(f"attribute {name}: required is {bool(a.get('required'))} in the file, {bool(b.get('required'))} in onnx.defs")
        if ("default" in a) != ("default" in b) or not _same_value(a.get("default"), b.get("default")):
            say(f"attribute {name}: default {a.get('default', '(none)')!r} in the file, "
                f"{b.get('default', '(none)')!r} in onnx.defs")
    return out


def drift(path: str | Path, min_opset: int = 13, extra_opsets: Iterable[int] = ()) -> list[Drift]:
    """Every difference between a spec file and onnx.defs in declared facts: versions, element
    types, ports (optional, variadic, min_arity), attributes (type, required, default)."""
    path = Path(path)
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    op = doc["operator"]
    ref = skeleton(op, min_opset, extra_opsets)
    all_since = {s.since_version: s for s in _schemas(op)}
    mine = {v["since"]: v for v in doc["versions"]}
    out: list[Drift] = []
    for v in ref["versions"]:
        if v["since"] not in mine:
            out.append(Drift(op, v["since"], "version missing from the file (in force at a required opset)"))
    for since, v in sorted(mine.items()):
        if since not in all_since:
            out.append(Drift(op, since, "version not in onnx.defs"))
            continue
        out.extend(_version_drift(op, v, _version(op, all_since[since])))
    return out


def import_operator(op: str, out_dir: str | Path, min_opset: int = 13, extra_opsets: Iterable[int] = ()) -> tuple[Path, list[Drift] | None]:
    """Write a skeleton for a new operator, or report drift for an existing file.

    Returns the path and None when a skeleton was written, or the path and the drift list."""
    path = Path(out_dir) / f"{op}.yaml"
    if path.exists():
        return path, drift(path, min_opset, extra_opsets)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump(skeleton(op, min_opset, extra_opsets)), encoding="utf-8")
    return path, None
