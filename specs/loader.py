"""Reads spec files: YAML, validated by schema.json, then checked for what a schema cannot say.

A malformed file is refused with one line naming the file, the field and what was expected.
"""
from __future__ import annotations

import fnmatch
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jsonschema
import numpy as np
import yaml

from opconform import containers, dtypes, tensors
from opconform.graphs import Graph, GraphSignature, is_graph_json
from opconform.model import (
    Attribute, DialectMapping, Difference, Domain, Erratum, Example, KnownSharedBug, Layer, OutputSet, Policy, Port,
    Relation, Source, Spec, SpecError, SpecVersion, StressCase, StressHint, StressInput, Tolerance, ValueRange,
)
from opconform.specs import dialects, expr

SPEC_ROOT = Path(__file__).parent
SCHEMA_PATH = SPEC_ROOT / "schema.json"


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def _where(path) -> str:
    parts = []
    for p in path:
        parts.append(f"[{p}]" if isinstance(p, int) else (("." if parts else "") + str(p)))
    return "".join(parts) or "(top level)"


# libyaml's safe loader parses the same documents ten times faster than the pure-Python one; every
# process of a run (drawing, probing, executing) loads the spec files it needs, so this is felt
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_file(path: str | Path) -> Spec:
    path = Path(path)
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise SpecError(f"{path}: not valid YAML{at}: {getattr(e, 'problem', e)}") from None
    except OSError as e:
        raise SpecError(f"{path}: cannot read spec file: {e.strerror}") from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        e = errors[0]
        raise SpecError(f"{path}: field {_where(e.absolute_path)}: {_short(e)}")
    return _build(doc, path)


def _short(e: jsonschema.ValidationError) -> str:
    if e.validator == "additionalProperties":
        return e.message.replace("Additional properties are not allowed", "unknown field(s); not allowed")
    if e.validator == "enum":
        return f"got {e.instance!r}, expected one of {', '.join(map(repr, e.validator_value))}"
    if e.validator == "required":
        return e.message
    if e.validator == "type":
        return f"got {e.instance!r}, expected {e.validator_value}"
    if e.validator == "oneOf":
        return f"expected exactly one of the alternatives ({e.message[:120]})"
    return e.message[:200]


def _build(doc: dict, path: Path) -> Spec:
    dialect, op = doc["dialect"], doc["operator"]
    if path.stem != op:
        raise SpecError(f"{path}: field operator: got {op!r}, expected the file name {path.stem!r}")
    own = dialects.get(dialect).domain
    if doc.setdefault("domain", own) != own:  # the domain is the dialect's (specs/dialects.py): one id per operator
        raise SpecError(f"{path}: field domain: got {doc['domain']!r}, expected {own!r}, the domain of dialect {dialect}")
    top_source = doc.get("source")
    versions = []
    seen = set()
    for i, v in enumerate(doc["versions"]):
        where = f"{path}: versions[{i}] (since {v['since']})"
        if v["since"] in seen:
            raise SpecError(f"{where}: field since: version {v['since']} appears twice")
        seen.add(v["since"])
        versions.append(_build_version(doc, v, where, top_source))
    versions.sort(key=lambda s: s.since)
    return Spec(dialect=dialect, operator=op, path=str(path), versions=tuple(versions))


def _ports(items: list, type_vars: dict, where: str, kind: str) -> tuple[Port, ...]:
    out = []
    for j, p in enumerate(items):
        w = f"{where}.{kind}[{j}] ({p['name']})"
        tv = p.get("type")
        tfa = p.get("type_from_attribute")
        if tv is not None:
            if tv not in type_vars:
                raise SpecError(f"{w}: field type: got {tv!r}, expected one of the type_vars {sorted(type_vars)}")
            types = tuple(type_vars[tv])
        elif tfa is not None:
            types = tuple(dict.fromkeys(tfa["map"].values()))
        else:
            types = tuple(p["types"])
        types = _value_types(types, w)
        rank = p.get("rank", [0, None])
        if rank[1] is not None and rank[1] < rank[0]:
            raise SpecError(f"{w}: field rank: got {rank}, expected min <= max")
        out.append(
            Port(
                name=p["name"],
                types=types,
                type_var=tv,
                type_from_attribute=tfa["attribute"] if tfa else None,
                type_map=dict(tfa["map"]) if tfa else {},
                rank_min=rank[0],
                rank_max=rank[1],
                optional=p.get("optional", False),
                variadic=p.get("variadic", False),
                min_arity=p.get("min_arity", 1),
                constant=p.get("constant", False),
                text=p.get("text", ""),
                converted_from=p.get("converted_from"),
                compare=p.get("compare", "exact"),
                values=_value_range(p, w, kind),
                arity=p.get("arity"),
                state=p.get("state", False),
            )
        )
    return tuple(out)


def _value_types(types: tuple[str, ...], w: str) -> tuple[str, ...]:
    """Element type names as they are; sequence, optional and map types in their canonical spelling
    (opconform.containers: ONNX's "seq(tensor(float))" becomes "seq(tensor(float32))")."""
    try:
        return tuple(containers.canonical(t) if containers.is_container_type(t) else t for t in types)
    except containers.TypeStringError as e:
        raise SpecError(f"{w}: field type: {e}") from None


def _value_range(p: dict, w: str, kind: str) -> ValueRange | None:
    """An input's `values: {typical: [lo, hi], step}`, checked: inputs only, numeric bounds in
    order (expression bounds are checked with the relations' names)."""
    v = p.get("values")
    if v is None:
        return None
    if kind != "inputs":
        raise SpecError(f"{w}: field values: only an input is drawn from a range")
    lo, hi = v["typical"]
    if not isinstance(lo, str) and not isinstance(hi, str) and lo > hi:
        raise SpecError(f"{w}: field values.typical: got {[lo, hi]}, expected lo <= hi")
    return ValueRange(lo, hi, float(v.get("step", 1.0)), v.get("text", ""))


def _tensor_value(a: dict, type_vars: dict, w: str) -> dict:
    """A tensor attribute's `tensor: {type, shape}` as the Attribute's tensor_types and tensor_shape
    (None without a shape: any small shape is drawn)."""
    t = a.get("tensor")
    if t is None:
        return {}
    if a["type"] != "tensor":
        raise SpecError(f"{w}: field tensor: got an attribute of type {a['type']!r}, expected type tensor")
    if t["type"] not in type_vars:
        raise SpecError(f"{w}: field tensor.type: got {t['type']!r}, expected one of the type_vars {sorted(type_vars)}")
    return {"tensor_types": tuple(type_vars[t["type"]]), "tensor_shape": tuple(t["shape"]) if "shape" in t else None}


def _graph_signature(a: dict, w: str) -> GraphSignature | None:
    """A graph attribute's `graph: {inputs, outputs, text}`: what its body must take and give."""
    g = a.get("graph")
    if g is None:
        return None
    if a["type"] != "graph":
        raise SpecError(f"{w}: field graph: got an attribute of type {a['type']!r}, expected type graph")
    return GraphSignature(tuple(g["inputs"]), tuple(g["outputs"]), g.get("text", ""),
                          g.get("emit", "attribute") == "enclosing", tuple(g.get("reads", ())))


def _check_converted_from(inputs: tuple[Port, ...], outputs: tuple[Port, ...], where: str) -> None:
    names = [p.name for p in inputs]
    for j, p in enumerate(inputs):
        if p.converted_from is not None:
            raise SpecError(f"{where}.inputs[{j}] ({p.name}): field converted_from: only an output converts an input")
    for j, p in enumerate(outputs):
        if p.converted_from is not None and p.converted_from not in names:
            raise SpecError(f"{where}.outputs[{j}] ({p.name}): field converted_from: got {p.converted_from!r}, "
                            f"expected an input name {names}")
    for kind, ports in (("inputs", inputs), ("outputs", outputs)):
        for j, p in enumerate(ports):
            if p.compare == "judged" and kind == "inputs":
                raise SpecError(f"{where}.{kind}[{j}] ({p.name}): field compare: got 'judged', expected it only on an output")
            if p.compare == "numeric_text" and (kind == "inputs" or "string" not in p.types):
                raise SpecError(f"{where}.{kind}[{j}] ({p.name}): field compare: got {p.compare!r}, expected it only on "
                                f"an output that can hold strings")


def _domain(a: dict, w: str) -> Domain | None:
    """The attribute's `domain`, checked: numeric attributes only, bounds in order, the typical
    range and the default inside the domain."""
    d = a.get("domain")
    if d is None:
        return None
    if a["type"] not in ("int", "float"):
        raise SpecError(f"{w}: field domain: got an attribute of type {a['type']!r}, expected type int or float")
    for side in ("min", "max"):
        if d.get(f"exclusive_{side}") and side not in d:
            raise SpecError(f"{w}: field domain.exclusive_{side}: set without domain.{side}")
    dom = Domain(min=d.get("min"), max=d.get("max"), exclusive_min=d.get("exclusive_min", False),
                 exclusive_max=d.get("exclusive_max", False),
                 typical=tuple(d["typical"]) if "typical" in d else None,
                 on_violation=d.get("on_violation", "undefined"), text=d.get("text", ""))
    if dom.min is not None and dom.max is not None and dom.min > dom.max:
        raise SpecError(f"{w}: field domain: got min {dom.min} > max {dom.max}, expected min <= max")
    if dom.typical is not None:
        lo, hi = dom.typical
        if lo > hi or not (dom.contains(lo) and dom.contains(hi)):
            raise SpecError(f"{w}: field domain.typical: got {list(dom.typical)}, expected lo <= hi, both inside the domain")
    default = a.get("default")
    if isinstance(default, (int, float)) and not isinstance(default, bool) and not dom.contains(default):
        raise SpecError(f"{w}: field domain: the default {default!r} is outside it")
    return dom


def _tensor(t: dict | None, w: str):
    if t is None:
        return None
    try:
        return tensors.from_data(t["dtype"], t["data"], t.get("shape"))
    except (ValueError, TypeError, dtypes.UnknownElementType) as e:
        raise SpecError(f"{w}: field data: does not fit dtype {t['dtype']} and shape {t.get('shape')}: {e}") from None


def _build_version(doc: dict, v: dict, where: str, top_source: dict | None) -> SpecVersion:
    type_vars = v.get("type_vars", {})
    inputs = _ports(v["inputs"], type_vars, where, "inputs")
    outputs = _ports(v["outputs"], type_vars, where, "outputs")
    _check_converted_from(inputs, outputs, where)
    attrs = []
    for name, a in v.get("attributes", {}).items():
        if a.get("required") and "default" in a:
            raise SpecError(f"{where}.attributes.{name}: a required attribute cannot have a default")
        rng = a.get("range")
        attrs.append(
            Attribute(
                name=name,
                type=a["type"],
                required=a.get("required", False),
                default=a.get("default"),
                # a list attribute's allowed lists as tuples: a factor value must be hashable (RNN's activations)
                allowed=tuple(tuple(x) if isinstance(x, list) else x for x in a["allowed"]) if "allowed" in a else None,
                range=tuple(rng) if rng else None,
                text=a.get("text", ""),
                domain=_domain(a, f"{where}.attributes.{name}"),
                **_tensor_value(a, type_vars, f"{where}.attributes.{name}"),
                signature=_graph_signature(a, f"{where}.attributes.{name}"),
            )
        )
    attr_names = {a.name for a in attrs}
    known = {p.name for p in inputs} | attr_names | set(v.get("symbols", {}))
    symbols = dict(v.get("symbols", {}))
    for name, text in symbols.items():
        _check_expr(text, known, f"{where}.symbols.{name}")
    for j, p in enumerate(inputs):
        for bound in (p.values.lo, p.values.hi) if p.values else ():
            if isinstance(bound, str):
                _check_expr(bound, known, f"{where}.inputs[{j}] ({p.name}).values.typical")
    for j, p in enumerate(outputs):
        if p.arity is not None:
            if not p.variadic:
                raise SpecError(f"{where}.outputs[{j}] ({p.name}): field arity: only a variadic output has an arity")
            _check_expr(p.arity, known, f"{where}.outputs[{j}] ({p.name}).arity")
    relations = []
    rids = set()
    for k, r in enumerate(v.get("relations", [])):
        w = f"{where}.relations[{k}] ({r['id']})"
        if r["id"] in rids:
            raise SpecError(f"{w}: field id: {r['id']!r} appears twice")
        rids.add(r["id"])
        _check_expr(r["check"], known, f"{w}.check")
        if "when" in r:
            _check_expr(r["when"], known, f"{w}.when")
        relations.append(Relation(r["id"], r["check"], r["on_violation"], r.get("when"), r.get("text", "")))
    implicit = [r for r in implicit_relations(inputs, attrs) if r.id not in rids]
    relations = implicit + relations
    rids |= {r.id for r in implicit}
    policies = []
    for name, p in v.get("policies", {}).items():
        if p["default"] not in p["options"]:
            raise SpecError(f"{where}.policies.{name}: field default: got {p['default']!r}, expected one of {p['options']}")
        policies.append(Policy(name, tuple(p["options"]), p["default"], p.get("text", "")))
    examples = []
    tensor_attrs = {a.name for a in attrs if a.type == "tensor"}
    for k, e in enumerate(v.get("examples", [])):
        w = f"{where}.examples[{k}] ({e['name']})"
        _check_example_names(e, attr_names, rids, w)
        examples.append(
            Example(
                name=e["name"],
                inputs=tuple(_tensor(t, f"{w}.inputs[{i}]") for i, t in enumerate(e["inputs"])),
                attributes={key: _tensor(a, f"{w}.attributes.{key}") if key in tensor_attrs
                            else Graph.from_json(a) if is_graph_json(a) else a  # a body as opconform/graphs.py writes it
                            for key, a in e.get("attributes", {}).items()},  # a tensor attribute as {dtype, shape, data}
                outputs=None if "outputs" not in e else tuple(_tensor(t, f"{w}.outputs[{i}]") for i, t in enumerate(e["outputs"])),
                expect_error=e.get("expect_error"),
                policies=dict(e.get("policies", {})),
                source=e.get("source", ""),
            )
        )
    tol = v.get("tolerance", {})
    source = v.get("source") or top_source
    return SpecVersion(
        dialect=doc["dialect"],
        operator=doc["operator"],
        since=v["since"],
        domain=doc["domain"],
        family=v.get("family", doc.get("family")),
        source=Source(source["document"], source.get("section", ""), source.get("url", "")),
        inputs=inputs,
        outputs=outputs,
        attributes=tuple(attrs),
        symbols=symbols,
        relations=tuple(relations),
        policies=tuple(policies),
        examples=tuple(examples),
        errata=tuple(Erratum(e["id"], e["text"], e["reading"]) for e in v.get("errata", [])),
        tolerance=_tolerance(tol, inputs + outputs, f"{where}.tolerance"),
        signed_zero=v.get("signed_zero", "equal"),
        notes=v.get("notes", ""),
        known_shared_bugs=_known_shared_bugs(v.get("known_shared_bugs", []), known, where),
        output_sets=_output_sets(v.get("output_sets", []), outputs, known, where),
        stress=_stress(v.get("stress"), inputs, outputs, attr_names, where),
        maps_to=_maps_to(v.get("maps_to"), known, outputs, where),
        layers=_layers(v.get("layers", []), attr_names, rids, where),
    )


def _maps_to(m: dict | None, known: set[str], outputs: tuple[Port, ...], where: str) -> DialectMapping | None:
    """`maps_to`, its expressions checked against this version's names (the other version's
    names are checked where both are loaded: tests/test_openvino_mapping.py)."""
    if m is None:
        return None
    w = f"{where}.maps_to"
    for k, text in enumerate(m.get("inputs") or ()):
        if text is not None:
            _check_expr(text, known, f"{w}.inputs[{k}]")
    for name, text in m.get("attributes", {}).items():
        _check_expr(text, known, f"{w}.attributes.{name}")
    if "outputs" in m and len(m["outputs"]) != len(outputs):
        raise SpecError(f"{w}: field outputs: got {len(m['outputs'])} names, expected one per output ({len(outputs)})")
    return DialectMapping(
        spec=m["spec"],
        inputs=tuple(m["inputs"]) if "inputs" in m else None,
        attributes=dict(m.get("attributes", {})),
        outputs=tuple(m["outputs"]) if "outputs" in m else None,
        differences=tuple(Difference(d["id"], d["kind"], d["text"]) for d in m.get("differences", [])),
    )


def _check_example_names(e: dict, attr_names: set[str], rids: set[str], w: str) -> None:
    """An example's (or layer's) attributes are the version's, and the relation it expects broken exists."""
    for key in e.get("attributes", {}):
        if key not in attr_names:
            raise SpecError(f"{w}: field attributes.{key}: no such attribute; expected one of {sorted(attr_names)}")
    if "expect_error" in e and e["expect_error"] not in rids:
        raise SpecError(f"{w}: field expect_error: got {e['expect_error']!r}, expected a relation id {sorted(rids)}")


def _layers(items: list, attr_names: set[str], rids: set[str], where: str) -> tuple[Layer, ...]:
    out = []
    for k, e in enumerate(items):
        w = f"{where}.layers[{k}] ({e['name']})"
        _check_example_names(e, attr_names, rids, w)
        ins = []
        for i, t in enumerate(e["inputs"]):
            if t is None:
                ins.append(None)
                continue
            data = None
            if "data" in t:
                data = _tensor({"dtype": t["dtype"], "shape": t["shape"], "data": t["data"]}, f"{w}.inputs[{i}]")
            ins.append((t["dtype"], tuple(t["shape"]), data))
        out.append(Layer(name=e["name"], inputs=tuple(ins),
                         outputs=tuple((t["dtype"], tuple(t["shape"])) for t in e.get("outputs", [])),
                         attributes=dict(e.get("attributes", {})), expect_error=e.get("expect_error"),
                         fill=e.get("fill", 1), source=e.get("source", "")))
    return tuple(out)


def _stress(s: dict | None, inputs: tuple[Port, ...], outputs: tuple[Port, ...], attr_names: set[str],
            where: str) -> StressHint | None:
    """The version's `stress:` block, checked: inputs, attributes and outputs it names exist, every
    required input is drawn, element types are the port's, dimensions and bounds are expressions of n."""
    if s is None:
        return None
    ports = {p.name: p for p in inputs}
    out_names = [p.name for p in outputs]
    cases, seen = [], set()
    for k, c in enumerate(s["cases"]):
        w = f"{where}.stress.cases[{k}] ({c['name']})"
        if c["name"] in seen:
            raise SpecError(f"{w}: field name: {c['name']!r} appears twice")
        seen.add(c["name"])
        drawn = {}
        for name, d in c["inputs"].items():
            if name not in ports:
                raise SpecError(f"{w}: field inputs.{name}: no such input; expected one of {sorted(ports)}")
            if d["type"] not in ports[name].types:
                raise SpecError(f"{w}: field inputs.{name}.type: got {d['type']!r}, expected one of {list(ports[name].types)}")
            for dim in d["shape"]:
                if isinstance(dim, str):
                    _check_expr(dim, {"n"}, f"{w}.inputs.{name}.shape")
                elif dim < 0:
                    raise SpecError(f"{w}: field inputs.{name}.shape: got {dim}, expected a size >= 0 or an expression of n")
            values = d.get("values", "random")
            below = None
            if isinstance(values, dict):
                below = str(values["below"])
                _check_expr(below, {"n"}, f"{w}.inputs.{name}.values.below")
                values = "below"
            drawn[name] = StressInput(d["type"], tuple(d["shape"]), values, below)
        missing = [p.name for p in inputs if not p.optional and not p.variadic and p.name not in drawn]
        if missing:
            raise SpecError(f"{w}: field inputs: lacks the required input(s) {missing}")
        for key in c.get("attributes", {}):
            if key not in attr_names:
                raise SpecError(f"{w}: field attributes.{key}: no such attribute; expected one of {sorted(attr_names)}")
        unknown = [n for n in c.get("outputs", ()) if n not in out_names]
        if unknown:
            raise SpecError(f"{w}: field outputs: got {unknown}, expected output names {out_names}")
        cases.append(StressCase(c["name"], drawn, dict(c.get("attributes", {})), tuple(c.get("outputs", ())), c.get("text", "")))
    return StressHint(s["complexity"], tuple(cases), s.get("text", ""))


# a float type's rtol must stay below the unit roundoff of the next narrower float type, or a
# result computed in that type (float64 through float32) would pass as the wider type's own
_NARROWER = {"float64": "float32", "float32": "float16"}


def _tolerance(tol: dict, ports: tuple[Port, ...], where: str) -> Tolerance:
    """The version's tolerance. A non-exact one names every float type the version's ports admit
    in per_type (a float64 falling back to float32's tolerance let float64 computed in float32
    pass), and each rtol is finer than the unit roundoff of the next narrower float type."""
    per_type = {k: (t.get("rtol", 0.0), t.get("atol", 0.0)) for k, t in tol.get("per_type", {}).items()}
    out = Tolerance(tol.get("rtol", 0.0), tol.get("atol", 0.0), per_type)
    if not (out.rtol or out.atol or any(r or a for r, a in per_type.values())):
        return out  # exact
    floats = sorted({e for p in ports for t in p.types for e in [containers.element_type(t)] if dtypes.get(e).is_float})
    missing = [t for t in floats if t not in per_type]
    if missing:
        raise SpecError(f"{where}.per_type: no entry for {', '.join(missing)}; a non-exact tolerance names every float "
                        f"type the version admits ({', '.join(floats)})")
    for name, narrower in _NARROWER.items():
        # an entry may say why the text itself computes in the narrower type (a stash_type)
        if name in per_type and "narrower" not in tol["per_type"][name]:
            roundoff = float(np.finfo(dtypes.get(narrower).numpy).eps) / 2
            if per_type[name][0] >= roundoff:
                raise SpecError(f"{where}.per_type.{name}.rtol: got {per_type[name][0]}, expected below {roundoff:.3g} "
                                f"(the unit roundoff of {narrower}: a {name} result computed in {narrower} would pass)")
    return out


def _output_sets(items: list, outputs: tuple[Port, ...], known: set[str], where: str) -> tuple[OutputSet, ...]:
    """The version's output sets: names of its outputs, every required output in each, `when`
    checked like a relation."""
    names = [p.name for p in outputs]
    required = {p.name for p in outputs if not p.optional}
    out = []
    for k, o in enumerate(items):
        w = f"{where}.output_sets[{k}]"
        unknown = [n for n in o["asked"] if n not in names]
        if unknown:
            raise SpecError(f"{w}: field asked: got {unknown}, expected output names {names}")
        if required - set(o["asked"]):
            raise SpecError(f"{w}: field asked: lacks the required output(s) {sorted(required - set(o['asked']))}")
        if "when" in o:
            _check_expr(o["when"], known, f"{w}.when")
        out.append(OutputSet(tuple(n for n in names if n in o["asked"]), o.get("when"), o.get("text", "")))
    return tuple(out)


def _known_shared_bugs(items: list, known: set[str], where: str) -> tuple[KnownSharedBug, ...]:
    """The version's known shared bugs; `match` is checked like a relation (names that exist)."""
    out, ids = [], set()
    for k, b in enumerate(items):
        w = f"{where}.known_shared_bugs[{k}] ({b['id']})"
        if b["id"] in ids:
            raise SpecError(f"{w}: field id: {b['id']!r} appears twice")
        ids.add(b["id"])
        _check_expr(b["match"], known, f"{w}.match")
        out.append(KnownSharedBug(b["id"], b["text"], b["match"], tuple(b.get("backends", ())), b.get("url", "")))
    return tuple(out)


def implicit_relations(inputs: tuple[Port, ...], attrs: list[Attribute]) -> list[Relation]:
    """Relations every spec states by its declarations: element types, ranks, type variables
    shared between inputs, attribute values. They come first, so later relations may assume them.
    A spec may override one by writing a relation with the same id."""
    out = []
    first_of_var: dict[str, str] = {}
    for p in inputs:
        if p.variadic:
            continue  # variadic inputs are bound as a tuple; their families state their own relations
        when = f"present({p.name})" if p.optional else None
        out.append(Relation(f"{p.name}_type", f"dtype({p.name}) in {tuple(p.types)!r}", "error", when,
                            f"{p.name} must have one of the element types {', '.join(p.types)}"))
        if p.type_var and p.type_var in first_of_var:
            other = first_of_var[p.type_var]
            w = f"present({other}) and present({p.name})"
            out.append(Relation(f"{p.name}_type_matches_{other}", f"dtype({p.name}) == dtype({other})", "error", w,
                                f"{p.name} and {other} share the type variable {p.type_var}"))
        elif p.type_var:
            first_of_var[p.type_var] = p.name
        if p.rank_min > 0 or p.rank_max is not None:
            hi = "" if p.rank_max is None else f" <= {p.rank_max}"
            out.append(Relation(f"{p.name}_rank", f"{p.rank_min} <= rank({p.name}){hi}", "error", when,
                                f"rank of {p.name} must be in [{p.rank_min}, {'inf' if p.rank_max is None else p.rank_max}]"))
    for a in attrs:
        given = f"present({a.name})" if not a.required else None
        if a.allowed is not None:
            out.append(Relation(f"{a.name}_allowed", f"{a.name} in {tuple(a.allowed)!r}", "error", given,
                                f"{a.name} must be one of {list(a.allowed)}"))
        if a.range is not None:
            lo, hi = a.range
            parts = [f"{lo} <= {a.name}" if lo is not None else None, f"{a.name} <= {hi}" if hi is not None else None]
            check = " and ".join(x for x in parts if x)
            if check:
                out.append(Relation(f"{a.name}_range", check, "error", given,
                                    f"{a.name} must be in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"))
        dom = a.domain
        if dom is not None and (dom.min is not None or dom.max is not None):
            parts = [f"{dom.min!r} {'<' if dom.exclusive_min else '<='} {a.name}" if dom.min is not None else None,
                     f"{a.name} {'<' if dom.exclusive_max else '<='} {dom.max!r}" if dom.max is not None else None]
            check = " and ".join(x for x in parts if x)
            out.append(Relation(f"{a.name}_domain", check, dom.on_violation, given,
                                dom.text or f"{a.name} must satisfy {check}"))
    return out


def _check_expr(text: str, known: set[str], where: str) -> None:
    try:
        unknown = expr.names(text) - known
    except expr.ExprError as e:
        raise SpecError(f"{where}: {e}") from None
    if unknown:
        raise SpecError(f"{where}: unknown name(s) {sorted(unknown)}; expected inputs, attributes or symbols {sorted(known)}")


def _spec_dirs() -> list[Path]:
    return [SPEC_ROOT / name for name in dialects.names()]


@lru_cache(maxsize=None)
def spec_files() -> tuple[Path, ...]:
    return tuple(sorted(p for d in _spec_dirs() for p in d.glob("*.yaml")))


def spec_path(dialect: str, operator: str, root: Path = SPEC_ROOT) -> Path:
    """Where the spec file of dialect::operator lives in a spec library laid out as root/<dialect>/<Operator>.yaml."""
    return root / dialect / f"{operator}.yaml"


@lru_cache(maxsize=None)
def load_spec(dialect: str, operator: str) -> Spec:
    path = spec_path(dialect, operator)
    if not path.exists():
        raise KeyError(f"no spec file for {dialect}::{operator} (looked for {path})")
    return load_file(path)


def parse_id(spec_id: str) -> tuple[str, str, int]:
    """'onnx::GatherND-13' -> ('onnx', 'GatherND', 13)."""
    try:
        dialect, rest = spec_id.split("::", 1)
        op, ver = rest.rsplit("-", 1)
        return dialect, op, int(ver)
    except ValueError:
        raise KeyError(f"bad spec id {spec_id!r}; expected dialect::Operator-version, e.g. onnx::GatherND-13") from None


def load(spec_id: str) -> SpecVersion:
    """The spec version with this id, e.g. load('onnx::GatherND-13')."""
    dialect, op, ver = parse_id(spec_id)
    return load_spec(dialect, op).version(ver)


def all_specs() -> list[Spec]:
    return [load_file(p) for p in spec_files()]


def all_versions() -> list[SpecVersion]:
    return [v for s in all_specs() for v in s.versions]


# ------------------------------------------------------------------ --spec patterns
# The one implementation of choosing spec versions by pattern: the runner (suites/plan.py), the
# pytest plugin, `opconform validate` (oracle/validation.py) and `opconform generate` all call these.

def globs(pattern: str | None) -> list[str]:
    """The comma-separated globs of a --spec pattern, e.g. 'onnx::Abs-13, onnx::Gather*'."""
    return [p.strip() for p in (pattern or "").split(",") if p.strip()]


def matches(pats: list[str], *names: str) -> bool:
    """Does a glob match one of these names (a version id, or `dialect::Operator`)?"""
    return any(fnmatch.fnmatchcase(n, p) for n in names for p in pats)


_SINCE_LINE = re.compile(rb"^\s*-\s*since:\s*(\d+)", re.MULTILINE)


def file_ids(path: Path) -> list[str]:
    """The names a glob can match in one spec file: `dialect::Operator` and a version id per
    `- since: N` line. Read without parsing the YAML, so a malformed file still has its names and
    checking a pattern against the whole library costs milliseconds."""
    dialect, op = path.parent.name, path.stem
    return [f"{dialect}::{op}"] + [f"{dialect}::{op}-{int(n)}" for n in _SINCE_LINE.findall(path.read_bytes())]


def check_pattern(pattern: str | None, files: Iterable[Path] | None = None) -> None:
    """ValueError naming the first glob of `pattern` that matches no spec file or version in
    `files` (default: the installed library). Without it, a typo in one of several comma-separated
    globs would silently drop those specs from a run."""
    pats = globs(pattern)
    if not pats:
        return
    names = [n for path in (spec_files() if files is None else files) for n in file_ids(Path(path))]
    for p in pats:
        if not matches([p], *names):
            raise ValueError(f"--spec: {p!r} matches no spec version; expected an id such as 'onnx::Abs-13' "
                             f"or a glob such as 'onnx::Gather*' (`opconform validate` lists them)")


def selection(pattern: str | None = None, files: Iterable[Path] | None = None
              ) -> tuple[list[SpecVersion], dict[Path, SpecError]]:
    """The spec versions of `files` (default: the installed library) whose id or `dialect::Operator`
    matches a glob of `pattern` (every version when None), in file order; and the files one of those
    globs could match (file_ids) that do not load, with why. Only those files are parsed, so a
    malformed file costs the patterns that name it, not the others."""
    pats = globs(pattern)
    versions: list[SpecVersion] = []
    malformed: dict[Path, SpecError] = {}
    for path in spec_files() if files is None else files:
        path = Path(path)
        if pats and not matches(pats, *file_ids(path)):
            continue
        try:
            # the library's files through load_spec: parsed once per process, as load() reads them
            spec = load_spec(path.parent.name, path.stem) if files is None else load_file(path)
        except SpecError as e:
            malformed[path] = e
            continue
        versions += [v for v in spec.versions if not pats or matches(pats, v.id, f"{v.dialect}::{v.operator}")]
    return versions, malformed


def select(pattern: str | None = None, *, strict: bool = False) -> list[SpecVersion]:
    """Spec versions whose id (or `dialect::Operator`) matches a glob (comma-separated globs allowed);
    all when None. SpecError for a spec file the pattern could match that does not load. strict:
    ValueError when one of the globs matches nothing (see check_pattern)."""
    if strict:
        check_pattern(pattern)
    versions, malformed = selection(pattern)
    if malformed:
        raise next(iter(malformed.values()))
    return versions
