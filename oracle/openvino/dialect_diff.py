"""An ONNX spec version and the OpenVINO version that maps onto it, side by side, and the inputs
on which their oracles disagree.

Side by side: inputs (element types, ranks), outputs, attributes with their defaults (and the
OpenVINO default as the mapping turns it into an ONNX value), relations (error behaviour: what must
be refused, what is undefined), open choices (policies), and the differences the mapping states.

Disagreements are searched on drawn cases: OpenVINO-valid cases spelt as ONNX ones through the
mapping, and, where the mapping can be read backwards (inputs and attributes passed by name),
ONNX-valid cases spelt as OpenVINO ones. A case disagrees when one spec refuses or leaves undefined
what the other computes, or both compute and no allowed alternative of one matches one of the
other's. Disagreements are grouped by what differs (a relation, an output); each group keeps its
smallest drawn case (fewest elements) as its example.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from opconform import compare, specs
from opconform.dialect_diff import DialectDiff, Disagreement, Row
from opconform.model import Case, Expectation, SpecVersion
from opconform.specs import expr

__all__ = ["Row", "Disagreement", "DialectDiff", "diff", "mapped_pairs", "side_by_side"]


def mapped_pairs() -> list[tuple[str, str]]:
    """(ONNX id, OpenVINO id) of every OpenVINO spec version that maps onto an ONNX one."""
    return [(v.maps_to.spec, v.id) for v in specs.all_versions() if v.dialect == "openvino" and v.maps_to is not None]


def _types(types: Sequence[str]) -> str:
    return ", ".join(types)


def _port(p) -> str:
    rank = f"rank {p.rank_min}..{'' if p.rank_max is None else p.rank_max}"
    extra = [x for x, on in (("optional", p.optional), ("variadic", p.variadic), ("constant", p.constant)) if on]
    if p.type_from_attribute:
        types = f"by {p.type_from_attribute}: " + _types(p.types)
    else:
        types = _types(p.types)
    return f"{p.name}: {types}; {rank}" + (f"; {', '.join(extra)}" if extra else "")


def _attribute(a) -> str:
    parts = [a.type]
    parts.append("required" if a.required else f"default {a.default!r}" if a.default is not None else "no default")
    if a.allowed:
        parts.append(f"one of {list(a.allowed)}")
    if a.range:
        parts.append(f"range {list(a.range)}")
    return f"{a.name}: " + "; ".join(parts)


def _relation(r) -> str:
    when = f" when {r.when}" if r.when else ""
    return f"{r.id} ({r.on_violation}): {r.check}{when}"


def _mapped_default(ov: SpecVersion, expression: str) -> Any:
    """The ONNX attribute value the mapping gives when every OpenVINO attribute keeps its default
    and no input is read (None when the expression reads inputs)."""
    if expr.names(expression) & {p.name for p in ov.inputs}:
        return None
    env = {a.name: a.default for a in ov.attributes}
    env.update(dict.fromkeys(ov.symbols))
    try:
        return expr.evaluate(expression, env)
    except expr.ExprError:
        return None


def side_by_side(onnx: SpecVersion, ov: SpecVersion) -> tuple[Row, ...]:
    """The two versions' declarations, aspect by aspect, paired through the mapping."""
    m = ov.maps_to
    rows: list[Row] = []
    onnx_in = list(onnx.inputs)
    ov_by_name = {p.name: p for p in ov.inputs}
    sources = list(m.inputs) if m and m.inputs is not None else [p.name for p in ov.inputs]
    for k, p in enumerate(onnx_in):
        text = sources[k] if k < len(sources) else None
        q = ov_by_name.get(text) if isinstance(text, str) else None
        right = _port(q) if q else ("(from " + text + ")" if text else "(absent)")
        rows.append(Row("inputs", p.name, _port(p), right, q is None or set(p.types) != set(q.types) or
                        (p.rank_min, p.rank_max) != (q.rank_min, q.rank_max)))
    used = {t for t in sources if isinstance(t, str)}
    for q in ov.inputs:
        if q.name not in used:
            rows.append(Row("inputs", q.name, "(an attribute, or none)", _port(q), True))
    onnx_outputs = {p.name: p for p in onnx.outputs}
    names = list(m.outputs) if m and m.outputs is not None else [p.name for p in onnx.outputs][: len(ov.outputs)]
    for q, n in zip(ov.outputs, names):
        p = onnx_outputs.get(n)
        rows.append(Row("outputs", q.name, _port(p) if p else "(none)", _port(q), p is None or set(p.types) != set(q.types)))
    from opconform.oracle.openvino.mapped import attribute_texts

    mapping = attribute_texts(ov, onnx) if m else {}
    for a in onnx.attributes:
        text = mapping.get(a.name)
        via = f"{text}" if text is not None else "(not set: ONNX default)"
        default = _mapped_default(ov, text) if text is not None else a.default
        differs = text is not None and default is not None and a.default is not None and default != a.default
        ov_attr = next((b for b in ov.attributes if b.name == text), None)
        if ov_attr is not None:  # passed by name: OpenVINO's own declaration
            right = _attribute(ov_attr) if ov_attr.name == a.name else f"{_attribute(ov_attr)} (renamed)"
        else:
            right = f"= {via}" + (f" -> {default!r} by default" if text is not None and default is not None else "")
        rows.append(Row("attributes", a.name, _attribute(a), right, differs or (text is None and a.required)))
    for b in ov.attributes:
        if not any(b.name in expr.names(t) for t in mapping.values()) and not any(
                b.name in expr.names(t) for t in (m.inputs or ()) if t):
            rows.append(Row("attributes", b.name, "(none)", _attribute(b), True))
    onnx_rel = {r.id: r for r in onnx.relations}
    ov_rel = {r.id: r for r in ov.relations}
    for rid in list(onnx_rel) + [r for r in ov_rel if r not in onnx_rel]:
        a, b = onnx_rel.get(rid), ov_rel.get(rid)
        rows.append(Row("relations", rid, _relation(a) if a else "", _relation(b) if b else "",
                        a is None or b is None or (a.check, a.on_violation, a.when) != (b.check, b.on_violation, b.when)))
    onnx_pol = {p.name: p for p in onnx.policies}
    ov_pol = {p.name: p for p in ov.policies}
    for name in list(onnx_pol) + [n for n in ov_pol if n not in onnx_pol]:
        a, b = onnx_pol.get(name), ov_pol.get(name)
        show = lambda p: f"{list(p.options)} (default {p.default})" if p else ""
        rows.append(Row("policies", name, show(a), show(b), a is None or b is None or a.options != b.options))
    for d in (m.differences if m else ()):
        rows.append(Row("stated differences", d.id, d.kind, d.text, True))
    return tuple(rows)


# ------------------------------------------------------------------------------- disagreements
def _expectation(spec: SpecVersion, inputs: Sequence[Any], attributes: dict) -> Expectation:
    from opconform import oracle

    with np.errstate(all="ignore"):
        try:
            return oracle.expectation(spec, list(inputs), attributes)
        except Exception as e:  # noqa: BLE001 -- an input one oracle cannot even evaluate is a refusal of it
            return Expectation("error", relation=f"oracle raised {type(e).__name__}")


def _describe(e: Expectation) -> str:
    if e.kind != "outputs":
        return f"{e.kind}: {e.relation}"
    outs = e.alternatives[0].outputs
    return "; ".join(f"{compare.type_name(np.asarray(y).dtype)}{list(np.shape(y))} {np.asarray(y).tolist()!r}"[:300] for y in outs)


def _outputs_agree(ov: SpecVersion, a: Expectation, b: Expectation, pick: list[int]) -> str:
    """'' when some alternative of `a` (OpenVINO's) matches some of `b` (ONNX's, its outputs picked
    in OpenVINO's order), else the first output that differs."""
    rules = compare.Rules.of(ov)
    first = ""
    for x in a.alternatives:
        for y in b.alternatives:
            bad = ""
            for k, port in enumerate(ov.outputs):
                theirs = np.asarray(y.outputs[pick[k]])
                if port.type_from_attribute is not None:  # a chosen index type: a stated difference, the values compared
                    theirs = theirs.astype(np.asarray(x.outputs[k]).dtype)
                if compare.check(np.asarray(x.outputs[k]), theirs, rules):
                    bad = port.name
                    break
            if not bad:
                return ""
            first = first or bad
    return first


def _size(xs: Sequence[Any]) -> tuple[int, int]:
    """How small a case is to read: one with an empty input last (it shows no values), then by elements."""
    present = [x for x in xs if x is not None]
    return int(any(np.size(x) == 0 for x in present)), sum(int(np.size(x)) for x in present)


def _onnx_case(ov: SpecVersion, case: Case) -> tuple[list, dict]:
    from opconform.oracle.openvino import mapped

    return mapped.onnx_arguments(ov, list(case.inputs), ov.resolved_attributes(dict(case.attributes)))


def _reverse_plan(onnx: SpecVersion, ov: SpecVersion) -> tuple[list[str | None], dict, dict] | None:
    """How an ONNX case is spelt as an OpenVINO one, where the mapping passes inputs and
    attributes by name: (the OpenVINO input each ONNX input feeds, ONNX attribute -> OpenVINO
    attribute, ONNX attribute -> the constant it must hold); None where it cannot be read back."""
    m = ov.maps_to
    ov_inputs = [p.name for p in ov.inputs]
    sources = list(m.inputs) if m.inputs is not None else ov_inputs[: len(onnx.inputs)]
    if any(s is not None and s not in ov_inputs for s in sources):
        return None
    renamed, fixed = {}, {}
    ov_attrs = {a.name for a in ov.attributes}
    from opconform.oracle.openvino.mapped import attribute_texts

    for name, text in attribute_texts(ov, onnx).items():
        if text in ov_attrs:
            renamed[name] = text
        elif not expr.names(text):
            fixed[name] = expr.evaluate(text, {})
        else:
            return None
    fed = {s for s in sources if s}
    if any(not p.optional and p.name not in fed for p in ov.inputs):
        return None
    return sources, renamed, fixed


def _openvino_case(onnx: SpecVersion, ov: SpecVersion, plan, case: Case) -> tuple[list, dict] | None:
    sources, renamed, fixed = plan
    resolved = onnx.resolved_attributes(dict(case.attributes))
    for name, value in fixed.items():
        if resolved.get(name) != value:
            return None
    for a in onnx.attributes:  # an ONNX attribute the mapping does not set must keep its default
        if a.name not in renamed and a.name not in fixed and a.name in case.attributes and case.attributes[a.name] != a.default:
            return None
    if len(case.inputs) != len(sources) and not (onnx.inputs and onnx.inputs[-1].variadic and len(case.inputs) == len(sources)):
        if len(case.inputs) > len(sources):
            return None
    by_name = {s: x for s, x in zip(sources, case.inputs) if s}
    inputs = [by_name.get(p.name) for p in ov.inputs]
    while inputs and inputs[-1] is None:
        inputs.pop()
    # the ONNX case means its defaults too: an OpenVINO attribute without one (Elu's alpha) gets them
    attrs = {renamed[k]: v for k, v in resolved.items() if k in renamed and v is not None}
    return inputs, attrs


def _judge(onnx: SpecVersion, ov: SpecVersion, ov_in, ov_attrs, onnx_in, onnx_attrs, pick) -> tuple[str, str, Expectation, Expectation] | None:
    a = _expectation(ov, ov_in, ov_attrs)
    b = _expectation(onnx, onnx_in, onnx_attrs)
    if a.kind == "outputs" and b.kind == "outputs":
        out = _outputs_agree(ov, a, b, pick)
        return ("outputs-differ", out, a, b) if out else None
    if a.kind == "outputs":
        return (f"onnx-{'refuses' if b.kind == 'error' else 'undefined'}", b.relation or "", a, b)
    if b.kind == "outputs":
        return (f"openvino-{'refuses' if a.kind == 'error' else 'undefined'}", a.relation or "", a, b)
    return None


def diff(onnx_id: str, openvino_id: str, *, count: int = 60, seed: int = 0, profile: str = "smoke") -> DialectDiff:
    """The two versions side by side and their oracles' disagreements on `count` cases drawn from
    each (seeded: the same cases every time)."""
    from opconform.generator import sampling

    onnx, ov = specs.load(onnx_id), specs.load(openvino_id)
    if onnx.dialect != "onnx" or ov.dialect != "openvino":
        raise ValueError(f"diff compares an onnx:: version with an openvino:: one; got {onnx_id} and {openvino_id}")
    if ov.maps_to is None:
        raise ValueError(f"{openvino_id} has no maps_to: its spec does not say which ONNX operator it computes")
    notes = []
    if ov.maps_to.spec != onnx.id:
        notes.append(f"{ov.id} maps onto {ov.maps_to.spec}; its mapping is applied to {onnx.id}")
    onnx_names = [p.name for p in onnx.outputs]
    chosen = list(ov.maps_to.outputs) if ov.maps_to.outputs is not None else onnx_names[: len(ov.outputs)]
    pick = [onnx_names.index(n) for n in chosen]
    groups: dict[tuple[str, str], list] = {}
    compared = 0

    def note(verdict, ov_in, ov_attrs, onnx_in, onnx_attrs) -> None:
        if verdict is None:
            return
        kind, what, a, b = verdict
        entry = groups.setdefault((kind, what), [0, None])
        entry[0] += 1
        size = max(_size(ov_in), _size(onnx_in))
        if entry[1] is None or size < entry[1][0]:
            entry[1] = (size, ov_in, ov_attrs, onnx_in, onnx_attrs, _describe(a), _describe(b))

    for case in sampling.generate(ov, count, seed, profile=profile, kind="valid"):
        try:
            onnx_in, onnx_attrs = _onnx_case(ov, case)
        except Exception:  # noqa: BLE001 -- a mapping that cannot spell this case in ONNX is no disagreement to show
            continue
        compared += 1
        note(_judge(onnx, ov, case.inputs, dict(case.attributes), onnx_in, onnx_attrs, pick),
             tuple(case.inputs), dict(case.attributes), tuple(onnx_in), onnx_attrs)
    plan = _reverse_plan(onnx, ov)
    if plan is None:
        notes.append("the mapping computes ONNX arguments from OpenVINO ones (not only by name): ONNX-valid cases are not spelt as OpenVINO ones")
    else:
        for case in sampling.generate(onnx, count, seed, profile=profile, kind="valid"):
            spelt = _openvino_case(onnx, ov, plan, case)
            if spelt is None:
                continue
            ov_in, ov_attrs = spelt
            compared += 1
            note(_judge(onnx, ov, ov_in, ov_attrs, case.inputs, dict(case.attributes), pick),
                 tuple(ov_in), ov_attrs, tuple(case.inputs), dict(case.attributes))
    found = []
    for (kind, what), (n, best) in sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0])):
        _, ov_in, ov_attrs, onnx_in, onnx_attrs, ov_text, onnx_text = best
        found.append(Disagreement(kind, what, n, tuple(onnx_in), dict(onnx_attrs), tuple(ov_in), dict(ov_attrs), onnx_text, ov_text))
    return DialectDiff(onnx, ov, side_by_side(onnx, ov), tuple(found), count, compared, plan is not None, seed, tuple(notes))
