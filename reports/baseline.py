"""Baselines: the reviewed record of where each backend stands, one YAML file kept in the repository.

For every backend and spec version the file says whether it passes (see opconform.reports.tally
for what that means) and lists each known failing case by id, with its verdict and a `reason:`
that people fill in when they review the file in a pull request. Passing cases are not listed,
so the file stays short and a diff shows only what changed.
"""
from __future__ import annotations

import os
from pathlib import Path

import yaml

from opconform.model import Verdict
from opconform.suites.baseline import (  # noqa: F401  (the file model, re-exported)
    FORMAT, STATUSES, Backend, Baseline, BaselineError, KnownFailure, SpecEntry, load,
)
from opconform.reports import breakdown
from opconform.reports.resultset import ResultSet, spec_sort_key
from opconform.reports.tally import Tally

DETAIL_CHARS = 200

HEADER = """\
# opconform baseline (format {format}): the reviewed state of each backend, per spec version.
#   status: pass | fail | unsupported   (pass: no case failed and at least one passed)
#   failing: the known failing cases; give each one a reason when you review this file.
# `opconform gate --baseline THIS_FILE RESULTS...` exits 1 when a case fails that is not listed
# here as failing (including new cases, and any case of a spec whose status is pass).
# Regenerate with `opconform baseline RESULTS... --out THIS_FILE`: reasons already written are kept.
"""


def from_results(rs: ResultSet, previous: Baseline | None = None) -> Baseline:
    """A baseline that accepts these results as they are; reasons from `previous` carry over."""
    out = Baseline()
    versions = rs.backend_versions()
    groups = rs.grouped()
    for b in rs.backends:
        backend = out.backends.setdefault(b, Backend(versions.get(b, "")))
        for s in rs.spec_ids:
            results = groups.get((b, s))
            if not results:
                continue
            t = Tally.of(results)
            entry = backend.specs[s] = SpecEntry(t.status, t.total)
            old = previous.entry(b, s) if previous else None
            for r in results:
                if r.verdict.is_failure:
                    reason = old.failing[r.case_id].reason if old and r.case_id in old.failing else ""
                    entry.failing[r.case_id] = KnownFailure(
                        r.case_id, r.verdict, breakdown.label(r), " ".join(r.detail.split())[:DETAIL_CHARS], reason)
    return out


def dump(b: Baseline) -> str:
    doc = {"format": FORMAT, "backends": {}}
    for name in sorted(b.backends):
        backend = b.backends[name]
        specs = {}
        for s in sorted(backend.specs, key=spec_sort_key):
            e = backend.specs[s]
            d = {"status": e.status, "cases": e.cases}
            if e.failing:
                d["failing"] = [
                    {"case": k.case, "verdict": k.verdict.value, "label": k.label, "detail": k.detail, "reason": k.reason}
                    for k in sorted(e.failing.values(), key=lambda k: (k.verdict.value, k.case))
                ]
            specs[s] = d
        doc["backends"][name] = {"version": backend.version, "specs": specs}
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return HEADER.format(format=FORMAT) + body


def write(b: Baseline, path: str | os.PathLike) -> None:
    Path(path).write_text(dump(b), encoding="utf-8")
