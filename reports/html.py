"""DIR/index.html: one self-contained page (styles and script inline, no network) that shows where
each backend conforms and why it does not.

Everything a backend returned reaches the page through Jinja2 with autoescaping on, and the page's
Content-Security-Policy allows only its own inline script (by hash) and no network at all: even a
string that slipped past escaping could not run or fetch anything."""
from __future__ import annotations

import base64
import datetime
import hashlib
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from opconform import __version__
from opconform.model import Result
from opconform.reports import breakdown
from opconform.reports.failure import FailureView, failure_view
from opconform.reports.resultset import ResultSet, split_spec_id
from opconform.reports.tally import VERDICTS, Tally

TEMPLATES = Path(__file__).parent / "templates"
MAX_FAILURES_SHOWN = 50  # per (backend, spec version); the rest are counted, and are in results.jsonl


# what each verdict means, for the legend a reader of the report sees under the overview
VERDICT_MEANING = {
    "pass": "the outputs match what the spec allows, or the backend refused a case the spec says must be refused",
    "mismatch": "outputs of the right shape and type, with wrong values",
    "wrong-shape": "an output has the wrong shape",
    "wrong-dtype": "an output has the wrong element type",
    "missing-output": "an output that was asked for did not come back",
    "error": "the backend refused a valid case",
    "accepted-invalid": "the backend returned outputs where the spec requires an error",
    "unsupported": "the backend says it does not implement this (type, attribute, opset); not counted in the pass rate",
    "crash": "the backend killed its process (a signal, an abort)",
    "timeout": "no answer within the per-case time limit",
}


@dataclass
class PairView:
    backend: str
    spec_id: str
    dialect: str
    operator: str
    anchor: str
    tally: Tally
    by_element_type: list
    by_attribute: list
    by_outputs: list
    by_relation: list
    policies: list
    failures: list[FailureView]
    failures_not_shown: int


@dataclass
class MatrixRow:
    spec_id: str
    dialect: str
    operator: str
    cells: list[tuple[str, Tally | None, str]]  # (backend, tally, anchor)
    total: Tally
    verdicts: str  # space-separated verdicts present, for the filter


@dataclass
class Coverage:
    rows: list | None
    note: str = ""
    columns: list[str] = field(default_factory=list)


def anchor(backend: str, spec_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{backend}-{spec_id}").strip("-")
    return f"d-{slug}-{hashlib.sha1(f'{backend}|{spec_id}'.encode()).hexdigest()[:6]}"


def rate_class(t: Tally | None) -> str:
    """CSS class of a matrix cell: colour by pass rate; grey when nothing ran."""
    if t is None or t.total == 0:
        return "none"
    if t.pass_rate is None:
        return "unsup"
    r = t.pass_rate
    return "r100" if r == 1 else "r90" if r >= 0.9 else "r50" if r >= 0.5 else "r0"


def _pair(backend: str, spec_id: str, results: list[Result], rs: ResultSet) -> PairView:
    d, op, _ = split_spec_id(spec_id)
    failing = [failure_view(r, rs.source.get((r.backend, r.case_id))) for r in results if r.verdict.is_failure]
    failing.sort(key=lambda f: (f.result.verdict.value, f.size))
    shown = failing[:MAX_FAILURES_SHOWN] + [
        failure_view(r, rs.source.get((r.backend, r.extra.get("shrunk_from")))) for r in rs.shrunk.get((backend, spec_id), ())]
    # each failure group's minimal (shrunk) case first, then the run's failing cases, smallest first
    shown.sort(key=lambda f: (f.group, f.shrunk_from is None, f.size))
    return PairView(
        backend, spec_id, d, op, anchor(backend, spec_id), Tally.of(results),
        breakdown.by_element_type(results), breakdown.by_attribute(results), breakdown.by_outputs(results),
        breakdown.by_relation(results), breakdown.policies(results),
        shown, max(0, len(failing) - MAX_FAILURES_SHOWN),
    )


def _matrix(rs: ResultSet, tallies: dict) -> list[MatrixRow]:
    rows = []
    for s in rs.spec_ids:
        d, op, _ = split_spec_id(s)
        cells = [(b, tallies.get((b, s)), anchor(b, s)) for b in rs.backends]
        total = sum((t for _, t, _ in cells if t), Tally())
        verdicts = " ".join(v.value for v in VERDICTS if total.counts[v])
        rows.append(MatrixRow(s, d, op, cells, total, verdicts))
    return rows


def coverage(results_dirs: list[str]) -> Coverage:
    """The coverage table from opconform.reports.coverage, or a visible note saying why there is none."""
    try:  # owned by the breadth tools; may be absent from this build
        cov = importlib.import_module("opconform.reports.coverage")
    except ImportError as e:
        if e.name in (None, "opconform.reports.coverage"):
            return Coverage(None, "coverage not available: opconform.reports.coverage is not in this build")
        return Coverage(None, f"coverage not available: {e}")
    try:
        rows = cov.rows(results_dirs=results_dirs)
    except Exception as e:  # noqa: BLE001 -- the report must still render; the note says what broke
        return Coverage(None, f"coverage not available: rows() failed: {type(e).__name__}: {e}")
    columns = ["operator", "versions", "has_oracle", "has_strategy", "official_passed", "official_total", "backends", "complete"]
    if rows and hasattr(rows[0], "missing"):  # the breadth tools also say why an operator is incomplete
        columns.append("missing")
    return Coverage(rows, "", columns)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # everything, not only .html: backend text must never become markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["rate_class"] = rate_class
    env.filters["pct"] = lambda x: "\u2014" if x is None else f"{100 * x:.1f}%"
    return env


def _script() -> tuple[Markup, str]:
    text = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    if "</" in text:  # the file is ours, not data; "</" in it would close the element early
        raise RuntimeError(f"{TEMPLATES / 'report.js'} must not contain '</'")
    return Markup(text), f"'sha256-{digest}'"


def render(rs: ResultSet, *, coverage_table: Coverage | None = None, now: datetime.datetime | None = None) -> str:
    tallies = rs.tallies()
    groups = rs.grouped()
    pairs = [_pair(b, s, groups[(b, s)], rs) for s in rs.spec_ids for b in rs.backends if (b, s) in groups]
    by_backend = {
        b: (sum((t for (bb, _), t in tallies.items() if bb == b), Tally()),
            [t.status for (bb, _), t in tallies.items() if bb == b])
        for b in rs.backends
    }
    script, script_hash = _script()
    context: dict[str, Any] = {
        "version": __version__,
        "generated": (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "runs": rs.dirs,
        "backends": rs.backends,
        "versions": rs.backend_versions(),
        "by_backend": by_backend,
        "matrix": _matrix(rs, tallies),
        "grand_total": Tally.of(rs.results),
        "pairs": pairs,
        "verdicts": [v.value for v in VERDICTS],
        "meaning": VERDICT_MEANING,
        "dialects": sorted({p.dialect for p in pairs}),
        "operators": sorted({p.operator for p in pairs}, key=str.lower),
        "coverage": coverage_table or Coverage(None, "coverage not available: not computed (--no-coverage)"),
        "script": script,
        "script_hash": script_hash,
        "style": Markup((TEMPLATES / "report.css").read_text(encoding="utf-8")),
    }
    return environment().get_template("report.html.j2").render(**context)
