"""One failing case as the report shows it: the case, expected against got, the backend's words,
and the command that replays it."""
from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from opconform import compare, containers
from opconform.model import Result, SpecVersion
from opconform.reports import breakdown
from opconform.reports.tensorview import Diff, TensorView, diff, view
from opconform.suites import symptom, verdicts


@dataclass
class OutputView:
    index: int
    expected: TensorView | None
    got: TensorView | None
    diff: Diff | None


@dataclass
class FailureView:
    result: Result
    label: str
    attributes: dict
    inputs: list[TensorView | None]
    expected_kind: str
    relation: str | None
    policies: dict  # the alternative the outputs are compared with
    outputs: list[OutputView]
    replay: str
    size: int  # total input elements: smaller cases (shrunk ones) are shown first
    problem: str = ""  # why part of the case could not be shown
    shrunk_from: str | None = None  # for a minimal case Hypothesis shrank: a run case of its group

    @property
    def group(self) -> tuple[str, str]:
        """(verdict, symptom key): the failure group (reports/groups.py), within which the shrunk case leads."""
        verdict = self.result.verdict.value
        return (verdict, symptom.of_result(self.result) or verdict)


@functools.lru_cache(maxsize=None)
def _spec(spec_id: str) -> SpecVersion | None:
    """The spec a result names; None where this checkout lacks it or it does not load (then the
    default rules: exact, -0.0 matches 0.0)."""
    from opconform import specs

    try:
        return specs.load(spec_id)
    except Exception:  # noqa: BLE001 -- any failure to load means "no rules known"
        return None


RulesOf = Callable[[int, np.ndarray], compare.Rules]  # (output slot, its expected array) -> its rules


def _rules_of(spec_id: str, inputs: list) -> RulesOf:
    """The rules the verdict compared each output slot by (verdicts.port_rules: the spec's tolerance,
    signed_zero, numeric_text), so that exactly the elements that made the verdict are marked."""
    known: dict[int, compare.Rules] = {}

    def rules(slot: int, expected: np.ndarray) -> compare.Rules:
        if not containers.is_container(expected) and compare.kind(expected.dtype) in ("int", "uint", "bool"):
            return compare.DEFAULT  # exact whatever the spec says: no spec file to load
        if slot not in known:
            spec = _spec(spec_id)
            known[slot] = compare.DEFAULT if spec is None else verdicts.port_rules(spec, verdicts.slot_port(spec, slot), inputs)
        return known[slot]

    return rules


def _decode(d) -> np.ndarray | None:
    return None if d is None else containers.decode(d)


def replay_command(r: Result, directory: Path | None, backend: str | None = None) -> str:
    """The command that replays `r`, runnable as printed from any directory: the results directory
    made absolute, and `backend` as the run was started with (run.json's "backend"; a plugin's
    package.module:Class), falling back to the result's backend name, which suits built-in backends."""
    where = shlex.quote(str(Path(directory).resolve())) if directory else "RESULTS_DIR"
    shrunk_from = r.extra.get("shrunk_from") if r.extra.get("shrunk") else None
    # --replay reads results.jsonl, which holds the run's cases, not the shrunk ones (shrunk.jsonl)
    case_id = shrunk_from or r.case_id
    command = f"opconform run --backend {shlex.quote(backend or r.backend)} --replay {where} --case {shlex.quote(case_id)}"
    return command + ("  # the run case this was shrunk from; the minimal case itself is in shrunk.jsonl" if shrunk_from else "")


def _compare(expected: list, got: list, rules: RulesOf) -> list[OutputView]:
    out = []
    for k in range(max(len(expected), len(got))):
        e = expected[k] if k < len(expected) else None
        g = got[k] if k < len(got) else None
        if e is None or g is None:
            out.append(OutputView(k, view(e), view(g), None))
            continue
        mask = compare.differing(g, e, rules(k, e))
        out.append(OutputView(k, view(e), view(g, mask), diff(e, g, mask)))
    return out


def _distance(e: np.ndarray | None, g: np.ndarray | None, rules: RulesOf, slot: int) -> int:
    if e is None or g is None:
        return 0 if e is g else 1
    m = compare.differing(g, e, rules(slot, e))
    return containers.length(e) + 1 if m is None else int(m.sum())


def _closest(alternatives: list, got: list, rules: RulesOf) -> tuple[dict, list]:
    """The expected alternative with the fewest differing elements: the one the backend came nearest."""
    options = [(dict(a.get("policies", {})), [_decode(o) for o in a.get("outputs", ())]) for a in alternatives]
    if not options:
        return {}, []
    return min(options, key=lambda o: sum(_distance(e, g, rules, k) for k, (e, g) in enumerate(zip(o[1], got))))


def case_size(r: Result) -> int:
    """Total input elements, from the recorded shapes alone (no decoding): smaller cases show first."""
    total = 0
    for x in (r.case or {}).get("inputs", ()):
        if isinstance(x, dict):
            total += int(np.prod(x.get("shape") or (), dtype=np.int64))
    return total


def failure_view(r: Result, directory: Path | None, backend: str | None = None) -> FailureView:
    case = r.case or {}
    problem = ""
    try:
        inputs = [_decode(x) for x in case.get("inputs", ())]
        got = [_decode(x) for x in (r.got or ())]
        rules = _rules_of(r.spec_id, inputs)
        policies, expected = _closest(case.get("expected", {}).get("alternatives", ()), got, rules)
        outputs = _compare(expected, got, rules) if (expected or got) else []
    except (ValueError, TypeError, IndexError) as e:  # one odd result must not sink the whole report
        inputs, policies, outputs, problem = [], {}, [], f"{type(e).__name__}: {e}"
    return FailureView(
        result=r,
        label=breakdown.label(r),
        attributes=breakdown.attributes(r),
        inputs=[view(x) for x in inputs],
        expected_kind=breakdown.expected_kind(r),
        relation=breakdown.relation(r),
        policies=policies,
        outputs=outputs,
        replay=replay_command(r, directory, backend),
        size=sum(containers.length(x) for x in inputs if x is not None),
        problem=problem,
        shrunk_from=r.extra.get("shrunk_from") if r.extra.get("shrunk") else None,
    )
