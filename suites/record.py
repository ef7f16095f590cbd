"""One Result (one line of results.jsonl) from a judged case: verdict, timings, and everything a
report or a replay needs (the case itself, what the backend returned when it failed)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np

from opconform import containers, dtypes
from opconform.model import Case, Outcome, Result, SpecVersion, Verdict
from opconform.suites import described, symptom, verdicts


def extra(spec: SpecVersion, case: Case, shard: str | None) -> dict[str, Any]:
    return {**described.case_fields(spec, case), "shard": shard}


def _encode_outputs(outputs: Any) -> list | None:
    encoded = []
    for x in outputs:
        if x is None:
            encoded.append(None)
            continue
        try:
            encoded.append(containers.encode(x))
        except (dtypes.UnknownElementType, ValueError, TypeError):
            encoded.append({"dtype": str(np.asarray(x).dtype), "shape": list(np.shape(x)), "unencodable": True})
    return encoded


# one encoder for every line: json.dumps given any option builds a new encoder per call, which cost
# as much as encoding a result line
_COMPACT = json.JSONEncoder(separators=(",", ":"))


class EncodedCase(bytes):
    """A case's JSON, encoded once when it was generated (see plan.encode_case); Judged.of puts
    it into the line as it is."""


class PartlyEncoded(dict):
    """A result's `extra` whose case fields (described.case_fields) were encoded when the case was
    (`fields`, a JSON object); the dict holds the rest. Judged.of joins the two in the line."""

    fields: bytes = b"{}"
    expected_kind: str = ""  # the one case field Judged reads

    @classmethod
    def of(cls, fields: bytes, rest: dict, expected_kind: str) -> "PartlyEncoded":
        made = cls(rest)
        made.fields, made.expected_kind = fields, expected_kind
        return made

    def encoded(self) -> bytes:
        rest = _COMPACT.encode(dict(self)).encode()
        if rest == b"{}" or self.fields == b"{}":
            return self.fields if rest == b"{}" else rest
        return self.fields[:-1] + b"," + rest[1:]


def make(spec: SpecVersion, case: Case, outcome: Outcome, backend: str, *, shard: str | None = None,
         harness_seconds: float = 0.0, encoded: tuple | None = None) -> dict:
    """The Result of a case, as the dict written to results.jsonl. The backend's outputs are kept
    only when the verdict is not pass (for a pass they equal an expected alternative).
    encoded: (case id, case JSON) when the case was encoded before; then result["case"] is that
    JSON as an EncodedCase (Judged.of writes it; Judged.result() reads it back); with a third
    element, the case's described.Described, its call and fields are taken from it."""
    known = _described(encoded)
    return _result(spec, case, outcome, backend, shard, harness_seconds,
                   *verdicts.judge(spec, case, outcome, known.call if known else None), encoded=encoded)


def _described(encoded: tuple | None) -> described.Described | None:
    """The case described at generation: the third element of plan.encode_case's tuple, if any."""
    return encoded[2] if encoded is not None and len(encoded) > 2 else None


def not_taken(spec: SpecVersion, case: Case, backend: str, reason: str, *, shard: str | None = None) -> dict:
    """The Result of a case whose spec version the backend does not take at all (say, an opset it
    cannot load): unsupported, whatever the case expects, since nothing was tested."""
    detail = f"{reason} [{verdicts.describe_call(spec, case)}]"
    return _result(spec, case, Outcome("unsupported", message=reason), backend, shard, 0.0, Verdict.UNSUPPORTED, detail, None)


def harness_error(spec: SpecVersion, case: Case, backend: str, message: str, *, shard: str | None = None,
                  encoded: tuple | None = None) -> dict:
    """The Result of a case opconform itself failed on (building its model, converting tensors,
    judging): verdict harness-error, with the one-line message and the case, to replay. Made
    without judging, since judging may be what failed."""
    outcome = Outcome("harness-error", message=message)
    try:
        known = _described(encoded)
        call = known.call if known else verdicts.describe_call(spec, case)
    except Exception:  # noqa: BLE001 - describing the call may be what failed
        call = spec.id
    detail = f"opconform failed on this case, not the backend: {message} [{call}]"
    return _result(spec, case, outcome, backend, shard, 0.0, Verdict.HARNESS_ERROR, detail, None, encoded=encoded)


def _result(spec: SpecVersion, case: Case, outcome: Outcome, backend: str, shard: str | None, harness_seconds: float,
            verdict: Verdict, detail: str, matched: dict | None, encoded: tuple | None = None) -> dict:
    if encoded is None:
        as_json = case.to_json()  # it holds the id: computing that hashes every input, so only once
        case_id: str = as_json["id"]
    else:
        case_id, as_json = encoded[0], None
    result = Result(
        case_id=case_id,
        spec_id=spec.id,
        backend=backend,
        verdict=verdict,
        detail=detail,
        backend_message=outcome.message,
        matched_policies=matched,
        backend_seconds=outcome.backend_seconds,
        harness_seconds=harness_seconds,
        build_seconds=outcome.build_seconds,
        case=as_json,
        got=None if verdict is Verdict.PASS or not outcome.outputs else _encode_outputs(outcome.outputs),
    ).to_json()
    rest = {"shard": shard, **_symptom(spec, case, outcome, verdict), **({"compiled": outcome.compiled} if outcome.compiled else {})}
    known = _described(encoded)
    if known:
        result["extra"] = PartlyEncoded.of(known.fields, rest, case.expected.kind)
    else:
        result["extra"] = {**described.case_fields(spec, case), **rest}
    if encoded is not None:
        result["case"] = EncodedCase(encoded[1])
    return result


def _symptom(spec: SpecVersion, case: Case, outcome: Outcome, verdict: Verdict) -> dict[str, str]:
    """{"symptom": key} for a failure (suites/symptom.py: what failure groups are keyed by), else {}."""
    key = symptom.of_case(spec, case, outcome, verdict)
    return {} if key is None else {"symptom": key}


_RAN = frozenset(v.value for v in Verdict if v.ran)


@dataclass(frozen=True)
class Judged:
    """A result ready for results.jsonl (its JSON line) plus what the run's summary needs. Workers
    encode the line themselves, so the parent only writes bytes."""

    case_id: str
    spec_id: str
    verdict: str
    backend_seconds: float
    build_seconds: float
    harness_seconds: float
    line: bytes
    expected_kind: str = ""  # what the spec expects: "outputs" (a valid case), "error" or "undefined"
    message: str = ""  # the backend's message, for a case that did not run (Verdict.ran false): why not

    @classmethod
    def of(cls, result: dict, *, started: float | None = None, not_harness: float = 0.0) -> "Judged":
        """started: when the worker took up the case (perf_counter); then the result's
        harness_seconds is measured here, after the line is encoded, as the time since then less
        `not_harness` (the backend's build and run), so that encoding the line counts as harness."""
        case, extra = result.get("case"), result.get("extra") or {}
        spliced = isinstance(case, EncodedCase)  # splice the case's JSON in instead of encoding it again
        partly = isinstance(extra, PartlyEncoded)  # and the case's fields of `extra`
        skip = ("case",) * spliced + ("extra",) * partly + ("harness_seconds",) * (started is not None)
        rest = _COMPACT.encode({k: v for k, v in result.items() if k not in skip} if skip else result).encode()
        harness = result["harness_seconds"]
        tail = b""
        if partly:
            tail += b',"extra":' + extra.encoded()
        if started is not None:
            harness = max(perf_counter() - started - not_harness, 0.0)
            tail += b',"harness_seconds":' + float.__repr__(harness).encode()
        if spliced:
            tail += b',"case":' + case
        line = b"".join((rest[:-1], tail, b"}\n"))
        verdict = result["verdict"]
        return cls(result["case_id"], result["spec_id"], verdict, result["backend_seconds"],
                   result["build_seconds"], harness, line,
                   extra.expected_kind if partly else extra.get("expected_kind", ""),
                   "" if verdict in _RAN else result.get("backend_message", ""))

    def result(self) -> dict:
        return json.loads(self.line)
