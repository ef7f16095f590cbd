"""The symptom key of a failing result (opconform/symptoms.py): what the runner records in
`Result.extra["symptom"]`, what failure groups are keyed by (reports/groups.py) and what the
shrinker must reproduce (suites/shrink.py).

    of_case(spec, case, outcome, verdict) -> "Y: order | type:T=uint, attr:sorted=1"
    of_result(result)                     -> the recorded key, or the same computed from the
                                             result's recorded case and outputs (older results
                                             files; no oracle is run: the case holds its expected
                                             outputs)
    row(spec, case)                       -> the categorical row the key holds, as factor values

The key's row is the case's value of the categorical factors of its spec version that split bugs
(generator/factors.py: element type classes, optional inputs given, attributes choosing among
listed modes; see _keyed and _type_class), the value-class factors left out (they describe values, not the category).
`row()`, what a shrink searches within, keeps every factor. An attribute left out reads as its
default's value, so `sorted` omitted and `sorted=1` are one row. A must-refuse case has no row (it
breaks one relation on purpose; the relation is the key); a type refusal's row is its first input's element type
(`types=float16`): such groups span spec versions, one per refused type.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping

import numpy as np

from opconform import containers, dtypes, symptoms
from opconform.model import Case, Outcome, Result, SpecVersion, Verdict
from opconform.suites import verdicts

TYPES = "types"  # the row field of a spec-independent element-type row

_FACTORS: dict[str, list] = {}  # spec id -> its factors (computing them probes the relations)


def _factors(spec: SpecVersion) -> list:
    from opconform.suites import case_cache

    if spec.id not in _FACTORS:
        _FACTORS[spec.id] = [f for f in case_cache.spec_factors(spec) if f.kind != "values"]
    return _FACTORS[spec.id]


def row(spec: SpecVersion, case: Case) -> dict[str, Any]:
    """Factor name -> the value the case holds (generator.exercised_values), value classes left out
    and factors no value describes dropped. These are the pins a shrink searches within."""
    from opconform.generator import exercised_values

    return {k: v for k, v in exercised_values(spec, _factors(spec), case).items() if v is not None}


def _keyed(spec: SpecVersion, f) -> bool:
    """Whether a factor splits failure groups: element types, optional inputs given or not, and
    attributes that pick among listed modes (sorted, reduction, mode: each a code path of its own
    in an implementation). Numeric attribute classes (axis negative or not, a non-default epsilon)
    and the outputs asked stay out: measured on OpenVINO's certify run of Unique and GatherND they
    split one bug into a group per case (49 one-case groups for one wrong-shape bug), and the
    shrinker then ran out of time before every group had its example."""
    if f.kind == "attribute":
        return spec.attribute(f.target).allowed is not None
    return f.kind in ("type", "presence")


def _row_text(spec: SpecVersion, case: Case) -> tuple[tuple[str, str], ...]:
    from opconform.generator import exercised_values

    fs = [f for f in _factors(spec) if _keyed(spec, f)]
    # an omitted attribute reads as its default: `sorted` left out and `sorted=1` are one row
    held = exercised_values(spec, fs, dataclasses.replace(case, attributes=spec.resolved_attributes(case.attributes)))
    row = []
    for f in fs:
        text = _value_text(spec, f, held.get(f.name))
        row.append((f.name, _type_class(text) if f.kind == "type" else text))
    return tuple(row)


def _type_class(name: str) -> str:
    """An element type's class in a key: float, float-narrow (the float8 and float4 types: their
    own conversion code), int, uint, bool, string, complex. Exact types split one bug into a group
    per type (OpenVINO's Unique: one empty-input shape bug in ten groups, one per type); where the
    width matters the kind says it (precision(float32), overflow(32-bit))."""
    try:
        kind = dtypes.get(name).kind
    except dtypes.UnknownElementType:
        return name  # "other", or a type this opconform does not know: as it is
    narrow = kind == "float" and name.startswith(("float8", "float4"))
    return "float-narrow" if narrow else kind


def _value_text(spec: SpecVersion, f, v: Any) -> str:
    if v is None:
        return "other"
    if f.kind == "outputs":
        return "+".join(p.name for p, asked in zip(spec.outputs, v) if asked) or "none"
    if f.kind == "presence":
        return "given" if v else "absent"
    name = getattr(v, "name", None)  # a factor Class (negative, non-negative, given, ...): its name
    if isinstance(name, str):
        return name
    return v if isinstance(v, str) else json.dumps(v, default=str)


def _first_type(case: Case) -> tuple[tuple[str, str], ...]:
    """The refused type of a type refusal: the first given input's (the operator's main input; a
    message seldom says which type it refuses, and per combination of types (CastLike's input and
    target) the refusals of onnx.reference make hundreds of groups)."""
    first = next((x for x in case.inputs if x is not None), None)
    return ((TYPES, "none" if first is None else _type_name(first)),)


def _type_name(x: Any) -> str:
    try:
        return dtypes.name_of(np.asarray(x).dtype)
    except dtypes.UnknownElementType:
        return str(np.asarray(x).dtype)


def of_case(spec: SpecVersion, case: Case, outcome: Outcome, verdict: Verdict) -> str | None:
    """The symptom key of a judged case; None for a pass or an unsupported case (no failure)."""
    if verdict is Verdict.HARNESS_ERROR:
        return symptoms.Symptom((("", verdict.value),)).key  # opconform's own failure: one group per pair
    if not verdict.is_failure:
        return None
    if case.expected.kind != "outputs":
        # one group per broken relation: a must-refuse case's element types are drawn by the breaker
        # (X_type's is a random type the port refuses), so keying by them split one missing check
        # into a group per type that the shrinker, drawing its own breaks, could rarely reproduce
        return symptoms.Symptom((("", verdict.value),), (), case.expected.relation).key
    if verdict is Verdict.ERROR:
        refusal = symptoms.refusal_kind(outcome.message)
        if refusal == symptoms.REFUSED_TYPE:
            return symptoms.Symptom((("", refusal),), _first_type(case)).key
        return symptoms.Symptom((("", refusal),), _row_text(spec, case)).key
    kinds: tuple[tuple[str, str], ...] = ()
    if verdict in (Verdict.MISMATCH, Verdict.WRONG_SHAPE, Verdict.WRONG_DTYPE, Verdict.MISSING_OUTPUT):
        kinds = _output_kinds(spec, case, outcome.outputs)
    return symptoms.Symptom(kinds or (("", verdict.value),), _row_text(spec, case)).key


def _output_kinds(spec: SpecVersion, case: Case, got) -> tuple[tuple[str, str], ...]:
    slots = verdicts.output_slots(spec, case)
    names = [name for _, name in slots]
    ports = [spec.outputs[k] for k, _ in slots]
    rules = [verdicts.port_rules(spec, p, case.inputs) for p in ports]
    alternatives = [a.outputs for a in case.expected.alternatives]
    # the first differing output only (the one the verdict names): the others mostly follow from it
    # (indices out of order when Y is), and a shrunk case must show the same
    return symptoms.output_kinds(list(got), alternatives, names, rules.__getitem__)[:1]


def of_result(r: Result) -> str | None:
    """The result's symptom key: recorded by the runner, else computed from its recorded case and
    outputs (results written before keys were recorded). None for a pass or unsupported."""
    recorded = (r.extra or {}).get("symptom")
    if recorded or not (r.verdict.is_failure or r.verdict is Verdict.HARNESS_ERROR):
        return recorded
    return _computed(r)


def _computed(r: Result) -> str:
    from opconform import specs

    try:
        spec = specs.load(r.spec_id)
        case = Case.from_json(r.case or {})
        got = [None if g is None or g.get("unencodable") else containers.decode(g) for g in (r.got or ())]
        return of_case(spec, case, Outcome("ok", got, r.backend_message), r.verdict) or r.verdict.value
    except Exception:  # noqa: BLE001 -- no such spec here, or a case or outputs this version cannot read: one
        # odd result must not sink a report; its key is then the verdict and its recorded element types
        return symptoms.Symptom((("", r.verdict.value),), _recorded_types(r)).key


def _recorded_types(r: Result) -> tuple[tuple[str, str], ...]:
    names = sorted({n for n in (r.extra or {}).get("dtypes", ()) if n})
    return ((TYPES, "+".join(names) or "none"),)


def from_dict(result: Mapping[str, Any]) -> str | None:
    """of_result for a results.jsonl line as a dict (the shrinker's and the isolated worker's form)."""
    return of_result(Result.from_json(result))
