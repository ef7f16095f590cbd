"""The CI gate: results against a reviewed baseline.

Rules (per backend present in the results):
  - regression: a case fails that the baseline does not list as a known failure of its spec
    version. That covers a case of a spec whose status is pass, a new case (not in the baseline:
    judged as if the baseline said it passes, because every accepted failure must be reviewed
    in), and a spec or backend the baseline does not know;
  - regression: a spec version the baseline says passes is now entirely unsupported;
  - stale (fails only with --strict): a case listed as failing now passes;
  - changed (reported, never fails): a known failing case fails with a different verdict;
  - not run (reported, never fails): a spec version in the baseline has no results now.
"""
from __future__ import annotations

from dataclasses import dataclass

from opconform.reports.baseline import Baseline
from opconform.reports.resultset import ResultSet, spec_sort_key
from opconform.reports.tally import Tally
from opconform.model import Verdict

OK, REGRESSED, BAD_INPUT = 0, 1, 2


@dataclass
class Finding:
    kind: str  # "regression" | "stale" | "changed" | "not-run"
    backend: str
    spec_id: str
    case_id: str | None
    message: str

    def line(self) -> str:
        where = f"{self.backend} {self.spec_id}" + (f" case {self.case_id}" if self.case_id else "")
        return f"{self.kind.upper():<10} {where}: {self.message}"


def compare(baseline: Baseline, rs: ResultSet) -> list[Finding]:
    findings: list[Finding] = []
    for (b, s), results in sorted(rs.grouped().items(), key=lambda kv: (kv[0][0], spec_sort_key(kv[0][1]))):
        entry = baseline.entry(b, s)
        why = ("not in the baseline" if entry is None else
               "baseline: spec passes" if entry.status == "pass" else "not a known failure in the baseline")
        seen = {}
        for r in results:
            seen[r.case_id] = r
            known = entry.failing.get(r.case_id) if entry else None
            if r.verdict.is_failure and known is None:
                findings.append(Finding("regression", b, s, r.case_id, f"{r.verdict.value} ({why}) {r.detail}".rstrip()))
            elif known is not None and r.verdict is Verdict.PASS:
                findings.append(Finding("stale", b, s, r.case_id, f"passes now; the baseline lists it as {known.verdict.value}"))
            elif known is not None and r.verdict.is_failure and r.verdict is not known.verdict:
                findings.append(Finding("changed", b, s, r.case_id, f"{r.verdict.value}, baseline says {known.verdict.value}"))
        now = Tally.of(results)
        if entry is not None and entry.status == "pass" and now.status == "not-run":
            findings.append(Finding("regression", b, s, None, f"not run now: {now.reason} (baseline: spec passes)"))
    ran = set(rs.grouped())
    for b in rs.backends:
        backend = baseline.backends.get(b)
        for s in sorted(backend.specs if backend else (), key=spec_sort_key):
            if (b, s) not in ran:
                findings.append(Finding("not-run", b, s, None, "in the baseline, but no results now"))
    return findings


def exit_code(findings: list[Finding], strict: bool = False) -> int:
    kinds = {f.kind for f in findings}
    if "regression" in kinds or (strict and "stale" in kinds):
        return REGRESSED
    return OK
