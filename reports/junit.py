"""DIR/junit.xml: one testcase per case, one testsuite per (backend, spec version).

Verdicts map onto JUnit's three outcomes like this:
  - pass -> a plain testcase;
  - unsupported -> <skipped> with the backend's reason (it declined up front; not a pass);
  - mismatch, wrong-shape, wrong-dtype, missing-output, accepted-invalid, error (refused a valid
    case) -> <failure>: the backend answered and the answer is wrong;
  - crash, timeout -> <error>: no answer came back at all;
  - harness-error -> <error type="harness-error">: opconform itself failed (not the backend).
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from opconform.model import Result, Verdict
from opconform.reports.resultset import ResultSet, split_spec_id
from opconform.reports.tally import Tally

_ERRORS = (Verdict.CRASH, Verdict.TIMEOUT)
_HARNESS = (Verdict.HARNESS_ERROR,)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(s: str) -> str:
    """XML 1.0 cannot hold control characters or lone surrogates; a backend's message may."""
    return _NOT_XML.sub("\ufffd", s or "")


def _testcase(r: Result) -> ET.Element:
    d, op, since = split_spec_id(r.spec_id)
    label = (r.extra or {}).get("label") or (r.case or {}).get("label") or "case"
    tc = ET.Element("testcase", {
        "classname": _clean(f"{r.backend}.{d}.{op}-{since}"),
        "name": _clean(f"{label} [{r.case_id}]"),
        "time": f"{r.backend_seconds + r.harness_seconds + r.build_seconds:.6f}",
    })
    text = _clean("\n".join(x for x in (r.detail, r.backend_message) if x))
    if r.verdict is Verdict.UNSUPPORTED:
        ET.SubElement(tc, "skipped", {"message": _clean(r.detail or r.backend_message or "unsupported")})
    elif r.verdict.is_failure or r.verdict in _HARNESS:
        tag = "error" if r.verdict in _ERRORS + _HARNESS else "failure"
        el = ET.SubElement(tc, tag, {"type": r.verdict.value, "message": _clean(f"{r.verdict.value}: {r.detail}")})
        el.text = text
    return tc


def _counts(t: Tally) -> dict[str, str]:
    errors = sum(t.counts[v] for v in _ERRORS)
    return {"tests": str(t.total), "failures": str(t.failed - errors), "errors": str(errors + t.harness_errors),
            "skipped": str(t.unsupported)}


def junit_xml(rs: ResultSet) -> str:
    root = ET.Element("testsuites", {"name": "opconform"})
    groups = rs.grouped()
    for b in rs.backends:
        for s in rs.spec_ids:
            results = groups.get((b, s))
            if not results:
                continue
            suite = ET.SubElement(root, "testsuite", {"name": _clean(f"{b} {s}"), **_counts(Tally.of(results))})
            suite.extend(_testcase(r) for r in results)
    for k, v in _counts(Tally.of(rs.results)).items():
        root.set(k, v)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
