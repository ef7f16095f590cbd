"""Breakdowns of one (backend, spec version)'s results: by element type, attribute value, outputs
asked and broken relation, plus the open-choice policies the backend's answers matched.

Each reads the runner's `Result.extra` fields and falls back to the case itself (`Result.case`), so
results written by other tools still break down."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any, Iterable

from opconform.graphs import Graph, is_graph_json
from opconform.model import Result, Verdict
from opconform.reports.tally import Tally


def _extra(r: Result, key: str) -> Any:
    return (r.extra or {}).get(key)


def element_types(r: Result) -> str:
    names = _extra(r, "dtypes")
    if names is None and r.case:
        names = [None if x is None else x.get("dtype") for x in r.case.get("inputs", ())]
    return ", ".join("absent" if n is None else str(n) for n in (names or ())) or "(no inputs)"


def attributes(r: Result) -> dict[str, Any]:
    attrs = _extra(r, "attributes")
    if attrs is None and r.case:
        attrs = r.case.get("attributes", {})
    # a body (If, Loop, Scan) as its one-line text, not the nested JSON it is stored as
    return {k: Graph.from_json(v).text() if is_graph_json(v) else v for k, v in (attrs or {}).items()}


def outputs_asked(r: Result) -> str:
    names = _extra(r, "outputs_requested")
    if names is None and r.case:
        names = [f"output {k}" for k, asked in enumerate(r.case.get("outputs_requested", ())) if asked]
    return ", ".join(map(str, names or ())) or "(none)"


def expected_kind(r: Result) -> str:
    kind = _extra(r, "expected_kind")
    if kind is None and r.case:
        kind = r.case.get("expected", {}).get("kind")
    return kind or "outputs"


def relation(r: Result) -> str | None:
    rel = _extra(r, "relation")
    if rel is None and r.case:
        rel = r.case.get("expected", {}).get("relation")
    return rel


def label(r: Result) -> str:
    return str(_extra(r, "label") or (r.case or {}).get("label") or "")


def _value_text(v: Any) -> str:
    if isinstance(v, dict) and "dtype" in v:  # a tensor attribute
        return f"tensor {v['dtype']}{v.get('shape')}"
    return json.dumps(v, sort_keys=True, default=str)


def _group(results: Iterable[Result], key) -> list[tuple[str, Tally]]:
    out: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        out[key(r)].add(r.verdict)
    return sorted(out.items())


def by_element_type(results: list[Result]) -> list[tuple[str, Tally]]:
    return _group(results, element_types)


def by_outputs(results: list[Result]) -> list[tuple[str, Tally]]:
    return _group(results, outputs_asked)


def by_relation(results: list[Result]) -> list[tuple[str, Tally]]:
    """Invalid cases (the spec expects an error or leaves the result undefined) by broken relation."""
    invalid = [r for r in results if expected_kind(r) != "outputs"]
    return _group(invalid, lambda r: f"{relation(r) or '?'} ({expected_kind(r)})")


def by_attribute(results: list[Result]) -> list[tuple[str, list[tuple[str, Tally]]]]:
    names = sorted({n for r in results for n in attributes(r)})
    return [(n, _group(results, lambda r, n=n: _value_text(attributes(r).get(n, "(unset)")))) for n in names]


def policies(results: list[Result]) -> list[tuple[str, int]]:
    """How many passing cases matched each assignment of the spec's open choices."""
    seen: Counter = Counter()
    for r in results:
        if r.verdict is Verdict.PASS and r.matched_policies:
            seen[", ".join(f"{k}={v}" for k, v in sorted(r.matched_policies.items()))] += 1
    return seen.most_common()
