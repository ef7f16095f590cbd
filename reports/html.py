"""The HTML pages of a report: DIR/index.html, the first view (runs, overview per backend, the spec
version x backend matrix worst first, failure groups, coverage), and one detail page per
(backend, spec version) under DIR/details/ (breakdowns, policies, failing cases with inputs,
expected against got, and the replay command). The first view stays small however many cases
failed: everything per case lives on the detail pages, plain files linked from the first view, so
the report works from file:// with no fetching.

Everything a backend returned reaches a page through Jinja2 with autoescaping on, and each page's
Content-Security-Policy allows only the first view's own inline script (by hash) and no network at
all: even a string that slipped past escaping could not run or fetch anything."""
from __future__ import annotations

import base64
import datetime
import hashlib
import importlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import jinja2
from markupsafe import Markup

from opconform import __version__
from opconform.reports import compile_mode, consensus_view, factor_coverage, links, matrix, stress_view
from opconform.reports.groups import failure_groups
from opconform.reports.links import anchor  # noqa: F401 -- re-exported: older callers import it from here
from opconform.reports.pairs import PairView, pairs
from opconform.reports.resultset import ResultSet, spec_sort_key
from opconform.reports.tally import VERDICTS, Tally

TEMPLATES = Path(__file__).parent / "templates"
# the first view lists this many failure groups, biggest first: its size must not grow with the
# failures; all of them are on links.ALL_GROUPS and on each spec version's page
MAX_GROUPS_ON_FIRST_VIEW = 200
CSP_BASE = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"  # no network, no script

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
    "harness-error": "opconform itself failed on the case (a bug in opconform, not in the backend); not counted in the pass rate",
    "crash": "the backend killed its process (a signal, an abort)",
    "timeout": "no answer within the per-case time limit",
    "slow": "right answers, but time or memory grows clearly faster than the spec states, or far past the oracle's (stress profile)",
}


@dataclass
class Coverage:
    rows: list | None
    note: str = ""
    columns: list[str] = field(default_factory=list)


def rate_class(t: Tally | None) -> str:
    """CSS class of a matrix cell: colour by pass rate; grey when nothing ran."""
    if t is None or t.total == 0:
        return "none"
    if t.pass_rate is None:
        return "r0" if t.failed else "unsup"
    r = t.pass_rate
    return "r100" if r == 1 else "r90" if r >= 0.9 else "r50" if r >= 0.5 else "r0"


def coverage(results_dirs: list[str], facts: Mapping[str, Any] | None = None) -> Coverage:
    """The coverage table from opconform.reports.coverage, or a visible note saying why there is none.
    facts: reports.coverage.OperatorFacts per operator, gathered by the command (without them the
    oracle, strategy and official columns say unknown: a report runs neither)."""
    try:  # owned by the breadth tools; may be absent from this build
        cov = importlib.import_module("opconform.reports.coverage")
    except ImportError as e:
        if e.name in (None, "opconform.reports.coverage"):
            return Coverage(None, "coverage not available: opconform.reports.coverage is not in this build")
        return Coverage(None, f"coverage not available: {e}")
    try:
        rows = cov.rows(results_dirs=results_dirs, facts=facts)
    except Exception as e:  # noqa: BLE001 -- the report must still render; the note says what broke
        return Coverage(None, f"coverage not available: rows() failed: {type(e).__name__}: {e}")
    columns = ["operator", "versions", "has_oracle", "has_strategy", "official_passed", "official_total", "backends", "complete"]
    if rows and hasattr(rows[0], "missing"):  # the breadth tools also say why an operator is incomplete
        columns.append("missing")
    return Coverage(rows, "", columns)


def _compiled_templates() -> jinja2.BytecodeCache | None:
    """The templates compiled once and kept (keyed by their source: an edited template compiles
    again): compiling them cost a second of every `opconform run`'s report. Kept beside the case
    cache ($OPCONFORM_CACHE, else ~/.cache/opconform)."""
    where = Path(os.environ.get("OPCONFORM_CACHE") or Path.home() / ".cache" / "opconform") / "templates"
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a cache that cannot be written only costs time
    return jinja2.FileSystemBytecodeCache(str(where))


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # everything, not only .html: backend text must never become markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_compiled_templates(),
    )
    env.globals["rate_class"] = rate_class
    env.globals["verdicts"] = [v.value for v in VERDICTS]
    env.globals["style"] = Markup((TEMPLATES / "report.css").read_text(encoding="utf-8"))
    env.filters["pct"] = lambda x: "\u2014" if x is None else f"{100 * x:.1f}%"
    return env


def _script() -> tuple[Markup, str]:
    text = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    if "</" in text:  # the file is ours, not data; "</" in it would close the element early
        raise RuntimeError(f"{TEMPLATES / 'report.js'} must not contain '</'")
    return Markup(text), f"'sha256-{digest}'"


def _stamp(now: datetime.datetime | None) -> str:
    return (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC")


def render_index(rs: ResultSet, *, coverage_table: Coverage | None = None, now: datetime.datetime | None = None,
                 env: jinja2.Environment | None = None) -> str:
    """DIR/index.html: the first view. Its size grows with spec versions and failure groups, never
    with failing cases."""
    tallies = rs.tallies()
    by_backend = {
        b: (sum((t for (bb, _), t in tallies.items() if bb == b), Tally()),
            [t.status for (bb, _), t in tallies.items() if bb == b])
        for b in rs.backends
    }
    rows = matrix.rows(rs, tallies)
    groups = failure_groups(rs)
    script, script_hash = _script()
    context: dict[str, Any] = {
        "csp": f"{CSP_BASE}; script-src {script_hash}",
        "version": __version__,
        "generated": _stamp(now),
        "runs": [(d.path.resolve(), d) for d in rs.dirs],
        "backends": rs.backends,
        "versions": rs.backend_versions(),
        "compiled": compile_mode.by_backend(rs),  # tvm, iree...: dynamic dimensions or per input shape
        "by_backend": by_backend,
        "matrix": rows,
        "grand_total": Tally.of(rs.results),
        "groups": groups[:MAX_GROUPS_ON_FIRST_VIEW],
        "groups_total": len(groups),
        "all_groups": links.ALL_GROUPS,
        "meaning": VERDICT_MEANING,
        "dialects": sorted({r.dialect for r in rows}),
        "operators": sorted({r.operator for r in rows}, key=str.lower),
        "coverage": coverage_table or Coverage(None, "coverage not available: not computed (--no-coverage)"),
        "factors": factor_coverage.by_backend(rs, factor_coverage.of(rs), factor_coverage.unsupported_of(rs)),
        "unsupported_page": links.UNSUPPORTED,
        "unsupported_id": links.unsupported_id,
        "consensus": consensus_view.of(rs),  # None with one backend: no section
        "stress": stress_view.of(rs),  # None without a stress run: no section
        "script": script,
    }
    return (env or environment()).get_template("index.html.j2").render(**context)


def render_detail(p: PairView, others: list[tuple[str, str]], *, now: datetime.datetime | None = None,
                  env: jinja2.Environment | None = None, shared: list | None = None,
                  compiled: compile_mode.CompileModes | None = None) -> str:
    """One (backend, spec version)'s page; `others` are (backend, page) of the same spec version on
    the other backends, for moving between them; `shared`, the consensus rows (consensus_view.CaseRow)
    where this backend agrees with another one against the spec; `compiled`, how its cases' models
    were compiled (None where the backend does not record it)."""
    return (env or environment()).get_template("detail.html.j2").render(
        csp=CSP_BASE, version=__version__, generated=_stamp(now), p=p, others=others, shared=shared or [],
        consensus_page=consensus_view.PAGE, compiled=compiled)


def render_details(rs: ResultSet, *, now: datetime.datetime | None = None) -> Iterator[tuple[str, str]]:
    """(page path relative to the report directory, its HTML) for every (backend, spec version)."""
    env = environment()
    ran: dict[str, list[str]] = {}
    for b, s in rs.grouped():
        ran.setdefault(s, []).append(b)
    agreement = consensus_view.of(rs)
    for p in pairs(rs):
        others = [(b, links.page(b, p.spec_id)) for b in sorted(ran[p.spec_id]) if b != p.backend]
        shared = agreement.shared(p.backend, p.spec_id) if agreement else []
        compiled = compile_mode.of_pair(rs.derived(compile_mode.pair_counts).get((p.backend, p.spec_id), Counter()))
        yield p.page, render_detail(p, others, now=now, env=env, shared=shared, compiled=compiled)
    if agreement is not None:
        yield consensus_view.PAGE, env.get_template("consensus.html.j2").render(
            csp=CSP_BASE, version=__version__, generated=_stamp(now), c=agreement)
    every = sorted(failure_groups(rs), key=lambda g: (g.backend, spec_sort_key(g.spec_id), -g.count))
    yield links.ALL_GROUPS, env.get_template("groups.html.j2").render(
        csp=CSP_BASE, version=__version__, generated=_stamp(now), groups=every)
    yield links.UNSUPPORTED, render_unsupported(rs, now=now, env=env)


def render_unsupported(rs: ResultSet, *, now: datetime.datetime | None = None,
                       env: jinja2.Environment | None = None) -> str:
    """details/unsupported.html: per backend, the factor values it does not support, once each
    (run.json's "unsupported_factors"), each spec version linked to its page."""
    listed, ran = factor_coverage.unsupported_of(rs), rs.grouped()
    backends = sorted({b for b, _ in listed} | set(rs.backends))
    sections = [(b, links.unsupported_id(b),
                 [(s, links.page(b, s) if (b, s) in ran else None, listed[(b, s)])
                  for s in sorted((s for bb, s in listed if bb == b), key=spec_sort_key)])
                for b in backends]
    return (env or environment()).get_template("unsupported.html.j2").render(
        csp=CSP_BASE, version=__version__, generated=_stamp(now), sections=sections)


def render(rs: ResultSet, *, coverage_table: Coverage | None = None, now: datetime.datetime | None = None) -> str:
    """The first view (kept under its old name for callers that render one page)."""
    return render_index(rs, coverage_table=coverage_table, now=now)
