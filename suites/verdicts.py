"""From what a backend did (Outcome) and what the spec says (Expectation) to exactly one Verdict.

    judge(spec, case, outcome) -> (Verdict, detail, matched_policies)

Where the spec leaves choices open the case carries one alternative per distinct outcome; the
backend passes when it agrees with any of them, and matched_policies says which option(s) it took
(a policy matched under several options shows them joined by "|").
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from opconform import containers, dtypes
from opconform.compare import Rules, check, differing, type_name
from opconform.model import Alternative, Case, Outcome, Port, SpecVersion, Verdict
from opconform.oracle import strings
from opconform.suites.described import describe_call  # noqa: F401 - judge's, and its callers'

# Outcome.status of a case a backend judged from files (suites/judge.py) wrote no answer for
NO_ANSWER = "no-answer"
# when no alternative matches, report the one the backend came closest to
_SEVERITY = {Verdict.MISMATCH: 0, Verdict.WRONG_SHAPE: 1, Verdict.WRONG_DTYPE: 2, Verdict.MISSING_OUTPUT: 3}


def judge(spec: SpecVersion, case: Case, outcome: Outcome, call: str | None = None) -> tuple[Verdict, str, dict | None]:
    """call: describe_call(spec, case), where the caller has it (described at generation)."""
    if call is None:
        call = describe_call(spec, case)
    exp = case.expected
    if outcome.status in ("crash", "timeout"):
        return Verdict(outcome.status), f"{outcome.message} [{call}]", None
    if outcome.status == NO_ANSWER:  # not even a refusal: whatever the case expects, its answer is missing
        return Verdict.MISSING_OUTPUT, f"{outcome.message} [{call}]", None
    if outcome.status == "harness-error":  # opconform failed on the case: says nothing of the backend
        return Verdict.HARNESS_ERROR, f"opconform failed on this case, not the backend: {outcome.message} [{call}]", None
    if exp.kind == "undefined":
        return Verdict.PASS, f"the spec leaves this undefined (relation {exp.relation}); backend: {outcome.status} [{call}]", None
    if exp.kind == "error":
        if outcome.status in ("error", "unsupported"):
            return Verdict.PASS, f"refused as required (relation {exp.relation}) [{call}]", None
        return Verdict.ACCEPTED_INVALID, f"got outputs, expected an error (relation {exp.relation}) [{call}]", None
    if exp.kind != "outputs":
        raise ValueError(f"case {case.id}: expectation kind {exp.kind!r}; expected outputs, error or undefined")
    if exp.refused_under is not None and outcome.status in ("error", "unsupported"):
        under = ", ".join(f"{k}={v}" for k, v in exp.refused_under.items())
        return Verdict.PASS, f"refused, as {under} allows (relation {exp.relation}) [{call}]", dict(exp.refused_under)
    if outcome.status == "unsupported":
        return Verdict.UNSUPPORTED, f"{outcome.message} [{call}]", None
    if outcome.status != "ok":
        return Verdict.ERROR, f"refused a valid case: {outcome.message} [{call}]", None
    if not exp.alternatives:
        raise ValueError(f"case {case.id}: valid case without expected outputs; cannot judge it")
    return _judge_outputs(spec, case, outcome.outputs, exp.alternatives, call)


def output_slots(spec: SpecVersion, case: Case) -> list[tuple[int, str]]:
    """(spec output port, name) per output slot, "" for one not asked: a variadic last output
    port (Split's parts) has one slot per value; Outcome.outputs and every alternative's outputs
    are per slot."""
    from opconform.generator import output_slots as slots

    return slots(spec, case)


def _judge_outputs(spec: SpecVersion, case: Case, got: Sequence, alternatives: Sequence[Alternative], call: str):
    asked = [(j, name, spec.outputs[k]) for j, (k, name) in enumerate(output_slots(spec, case)) if name]
    got = list(got) + [None] * (max((j for j, _, _ in asked), default=-1) + 1 - len(got))
    missing = [name for j, name, _ in asked if got[j] is None]
    if missing:
        return Verdict.MISSING_OUTPUT, f"got no {', '.join(missing)}, expected {len(asked)} output(s) [{call}]", None
    by_slot = {j: port_rules(spec, port, case.inputs) for j, _, port in asked}
    matched, closest = [], None
    for alt in alternatives:
        failure = None
        for j, name, port in asked:
            want = alt.outputs[j] if j < len(alt.outputs) else None
            if want is None:
                failure = Verdict.MISMATCH, f"output {name}: the case expects no value for it"
            else:
                failure = judge_output(name, containers.as_value(got[j]), containers.as_value(want), by_slot[j],
                                       values=port.compare != "judged")
            if failure:
                break
        if failure is None and any(port.compare == "judged" for _, _, port in asked):
            failure = _judged(spec, case, {name: np.asarray(got[j]) for j, name, _ in asked}, alt)
        if failure is None:
            matched.append(alt)
        elif closest is None or _SEVERITY[failure[0]] < _SEVERITY[closest[0]]:
            closest = failure
    if matched:
        return Verdict.PASS, f"agrees with {len(matched)} of {len(alternatives)} allowed outcome(s) [{call}]", _merge(matched)
    verdict, text = closest
    if len(alternatives) > 1:
        text += f" (closest of {len(alternatives)} allowed outcomes)"
    return verdict, f"{text} [{call}]", None


def _merge(alternatives: Sequence[Alternative]) -> dict:
    keys = dict.fromkeys(k for a in alternatives for k in a.policies)
    return {k: "|".join(sorted({str(a.policies.get(k)) for a in alternatives})) for k in keys}


def slot_port(spec: SpecVersion, slot: int) -> Port | None:
    """The spec output port of an output slot (output_slots): slot j is port j, and every slot from
    a variadic last port on is that port."""
    if not spec.outputs:
        return None
    if spec.outputs[-1].variadic:
        return spec.outputs[min(slot, len(spec.outputs) - 1)]
    return spec.outputs[slot] if slot < len(spec.outputs) else None


def converted_source(spec: SpecVersion, port: Port | None, inputs: Sequence) -> np.dtype | None:
    """The element type of the input a `compare: numeric_text` port converts (`converted_from`);
    None where the port converts nothing or the input is absent (its texts then read as float64)."""
    if port is None or port.compare != "numeric_text" or port.converted_from is None:
        return None
    k = [p.name for p in spec.inputs].index(port.converted_from)
    x = inputs[k] if k < len(inputs) else None
    return None if x is None else np.asarray(x).dtype


def rules(spec: SpecVersion, numeric_text: bool = False, source: np.dtype | None = None) -> Rules:
    """The spec's rules for comparing an output (its tolerance and signed_zero); `numeric_text` (a
    port with `compare: numeric_text`): strings converted from a float type (`source`; float64 when
    None) match when they read back to the same value in that type, with the same NaN, infinity and
    signed-zero class ("-0" and "-0.0" for -0.0; "1e5" and "100000" for 1e5); strings converted
    from integers, bool or strings stay exact."""
    texts = None
    if numeric_text and (source is None or _is_float_dtype(source)):
        texts = functools.partial(strings.same_numbers, source=source)
    return Rules.of(spec, texts)


def port_rules(spec: SpecVersion, port: Port | None, inputs: Sequence) -> Rules:
    """rules() for an output port (slot_port) of a case with these inputs: what the verdict and the
    report's highlighting of an output both use."""
    numeric_text = port is not None and port.compare == "numeric_text"
    return rules(spec, numeric_text, converted_source(spec, port, inputs))


def _output_port(spec: SpecVersion, name: str) -> Port | None:
    """The output port of a slot name ('output', or 'outputs[2]' for a variadic port)."""
    base = name.split("[", 1)[0]
    return next((p for p in spec.outputs if p.name in (name, base)), None)


_VERDICT_OF = {"element type": Verdict.WRONG_DTYPE, "shape": Verdict.WRONG_SHAPE, "values": Verdict.MISMATCH}


def judge_output(name: str, got: np.ndarray, want: np.ndarray, rules: Rules, values: bool = True) -> tuple[Verdict, str] | None:
    """None when got conforms to want under `rules`, else (verdict, 'output X at [i]: got ..., expected ...').
    values=False: the element type and shape only (a `compare: judged` port, whose values the oracle judges)."""
    found = check(got, want, rules)
    if found is None or (not values and found.kind == "values"):
        return None
    return _VERDICT_OF[found.kind], found.about(f"output {name}")


def _judged(spec: SpecVersion, case: Case, got: dict, alt: Alternative) -> tuple[Verdict, str] | None:
    """The oracle's judgement of a random output's values (oracle.judge), under the alternative's policies."""
    from opconform import oracle

    why = oracle.judge(spec, case.inputs, case.attributes, alt.policies, got)
    return (Verdict.MISMATCH, why) if why else None


def compare(spec: SpecVersion, name: str, got: np.ndarray, want: np.ndarray,
            source: np.dtype | None = None) -> tuple[Verdict, str] | None:
    """judge_output under the spec's rules for the output port called `name`. `source`: for a port
    with `compare: numeric_text`, the element type of the input it converts; float64 when not given."""
    port = _output_port(spec, name)
    return judge_output(name, got, want, rules(spec, port is not None and port.compare == "numeric_text", source))


def equal_elements(spec: SpecVersion, type_name: str, got: np.ndarray, want: np.ndarray, *,
                   numeric_text: bool = False, source: np.dtype | None = None) -> np.ndarray:
    """Element-wise conformance (opconform.compare.differing, negated) under the spec's rules;
    `numeric_text` as for a port with `compare: numeric_text`. `type_name` is unused: kept for
    callers (reports/consensus_view.py) that pass it."""
    return ~differing(got, want, rules(spec, numeric_text, source))


def _is_float_dtype(dtype: np.dtype) -> bool:
    try:
        return dtypes.get(type_name(np.dtype(dtype))).is_float
    except (dtypes.UnknownElementType, TypeError):
        return False
