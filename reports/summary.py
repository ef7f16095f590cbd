"""DIR/summary.json: the numbers of a report, for machines (dashboards, other CI steps)."""
from __future__ import annotations

from opconform.model import Verdict
from opconform.reports import compile_mode
from opconform.reports.groups import failure_groups
from opconform.reports.resultset import ResultSet
from opconform.reports.tally import Tally

FORMAT = 1


def summary(rs: ResultSet) -> dict:
    tallies = rs.tallies()
    compiled = compile_mode.by_backend(rs)
    backends = {}
    for b in rs.backends:
        mine = {s: t for (bb, s), t in tallies.items() if bb == b}
        total = sum(mine.values(), Tally())
        statuses = [t.status for t in mine.values()]
        backends[b] = {
            "version": rs.backend_versions().get(b, ""),
            **total.as_dict(),
            "specs_by_status": {s: statuses.count(s) for s in ("pass", "fail", "not-run")},
            "specs": {s: mine[s].as_dict() for s in rs.spec_ids if s in mine},
        }
        if b in compiled:  # a compiling backend: dynamic dimensions, or per input shape where those failed
            backends[b]["compiled"] = compiled[b].as_dict()
    failures = [
        {"backend": r.backend, "spec_id": r.spec_id, "case_id": r.case_id, "verdict": r.verdict.value,
         "detail": r.detail}
        for r in rs.results if r.verdict.is_failure
    ]
    # opconform's own failures: not the backend's, listed apart so that a dashboard can fail on them
    harness_errors = [{"backend": r.backend, "spec_id": r.spec_id, "case_id": r.case_id, "detail": r.detail}
                      for r in rs.results if r.verdict is Verdict.HARNESS_ERROR]
    return {
        "format": FORMAT,
        "verdicts": [v.value for v in Verdict],
        "runs": [{"dir": str(d.path.resolve()), **d.run} for d in rs.dirs],
        "backends": backends,
        "failures": failures,
        # one entry per failure group (reports/groups.py): backend, spec_id ("*": across spec versions),
        # verdict, symptom key, count and the case id of its example (the shrunk one where there is one)
        "groups": [g.as_dict() for g in failure_groups(rs)],
        "harness_errors": harness_errors,
    }
