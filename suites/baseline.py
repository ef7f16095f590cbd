"""The baseline file: the reviewed record of where each backend stands (one YAML file kept in the
repository), read into a small data model.

It lives in the suites stage because both the pytest plugin (suites) and the gate (reports) read
it; writing one from results is the reports stage's job (opconform.reports.baseline).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from opconform.model import Verdict

FORMAT = 1
STATUSES = ("pass", "fail", "not-run", "unsupported")  # "unsupported": what baselines before "not-run" wrote for it


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
