"""Baselines: the reviewed record of where each backend stands, one YAML file kept in the repository.

For every backend and spec version the file says whether it passes (see opconform.reports.tally
for what that means) and lists each known failing case by id, with its verdict and a `reason:`
that people fill in when they review the file in a pull request. Passing cases are not listed,
so the file stays short and a diff shows only what changed.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from opconform.model import Verdict
from opconform.reports import breakdown
from opconform.reports.resultset import ResultSet, spec_sort_key
from opconform.reports.tally import Tally

FORMAT = 1
STATUSES = ("pass", "fail", "unsupported")
DETAIL_CHARS = 200

HEADER = """\
# opconform baseline (format {format}): the reviewed state of each backend, per spec version.
#   status: pass | fail | unsupported   (pass: no case failed and at least one passed)
#   failing: the known failing cases; give each one a reason when you review this file.
# `opconform gate --baseline THIS_FILE RESULTS...` exits 1 when a case fails that is not listed
# here as failing (including new cases, and any case of a spec whose status is pass).
# Regenerate with `opconform baseline RESULTS... --out THIS_FILE`: reasons already written are kept.
"""


class BaselineError(ValueError):
    """The baseline file cannot be used; the message is one line naming the file and the problem."""


@dataclass
class KnownFailure:
    case: str
    verdict: Verdict
    label: str = ""
    detail: str = ""
    reason: str = ""


@dataclass
class SpecEntry:
    status: str
    cases: int = 0
    failing: dict[str, KnownFailure] = field(default_factory=dict)  # case id -> entry


@dataclass
class Backend:
    version: str = ""
    specs: dict[str, SpecEntry] = field(default_factory=dict)


@dataclass
class Baseline:
    backends: dict[str, Backend] = field(default_factory=dict)

    def entry(self, backend: str, spec_id: str) -> SpecEntry | None:
        b = self.backends.get(backend)
        return None if b is None else b.specs.get(spec_id)


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


def _mapping(x, where: str, path) -> dict:
    if not isinstance(x, dict):
        raise BaselineError(f"baseline {path}: {where}: expected a mapping, got {type(x).__name__}")
    return x


def load(path: str | os.PathLike) -> Baseline:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise BaselineError(f"baseline {p}: cannot read ({e.strerror or e})") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise BaselineError(f"baseline {p}: malformed YAML{where}: {getattr(e, 'problem', None) or e}") from None
    doc = _mapping(doc, "top level", p)
    if doc.get("format") != FORMAT:
        raise BaselineError(f"baseline {p}: format: expected {FORMAT}, got {doc.get('format')!r}")
    out = Baseline()
    for name, bd in _mapping(doc.get("backends") or {}, "backends", p).items():
        bd = _mapping(bd, f"backends.{name}", p)
        backend = out.backends[str(name)] = Backend(str(bd.get("version") or ""))
        for s, sd in _mapping(bd.get("specs") or {}, f"backends.{name}.specs", p).items():
            where = f"backends.{name}.specs.{s}"
            sd = _mapping(sd, where, p)
            if sd.get("status") not in STATUSES:
                raise BaselineError(f"baseline {p}: {where}.status: expected one of {', '.join(STATUSES)}, got {sd.get('status')!r}")
            entry = backend.specs[str(s)] = SpecEntry(sd["status"], int(sd.get("cases") or 0))
            for i, fd in enumerate(sd.get("failing") or ()):
                known = _known(fd, f"{where}.failing[{i}]", p)
                entry.failing[known.case] = known
    return out


def _known(fd, where: str, path) -> KnownFailure:
    fd = _mapping(fd, where, path)
    try:
        verdict = Verdict(fd.get("verdict"))
    except ValueError:
        raise BaselineError(
            f"baseline {path}: {where}.verdict: expected one of {', '.join(v.value for v in Verdict)}, got {fd.get('verdict')!r}"
        ) from None
    if not isinstance(fd.get("case"), str) or not fd["case"]:
        # an all-digit id written unquoted reads as a number and loses its leading zeros
        raise BaselineError(f"baseline {path}: {where}.case: expected a case id string (quote it), got {fd.get('case')!r}")
    return KnownFailure(str(fd["case"]), verdict, str(fd.get("label") or ""), str(fd.get("detail") or ""),
                        str(fd.get("reason") or ""))
