"""Writing a report directory: index.html (the first view), details/*.html (one page per backend and
spec version), junit.xml and summary.json from one ResultSet."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from opconform.reports import html, links
from opconform.reports.junit import junit_xml
from opconform.reports.resultset import ResultSet
from opconform.reports.summary import summary


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8", errors="surrogateescape")


def _clear_details(details: Path) -> None:
    """Remove the detail pages of an earlier report in the same directory: one that the new results
    no longer have would otherwise stay, linked from nothing but looking current. Only our own
    pages (*.html) go; anything else a person put there stays."""
    if details.is_dir():
        for old in details.glob("*.html"):
            old.unlink()


def write_report(rs: ResultSet, out: str | os.PathLike, *, with_coverage: bool = True,
                 coverage_facts: Mapping[str, Any] | None = None) -> dict[str, Path]:
    """with_coverage: the operator coverage table, its oracle, strategy and official columns from
    coverage_facts (reports.coverage.OperatorFacts per operator, which the command gathers:
    opconform.commands.coverage.library_facts), unknown without them."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    details = out / links.DETAILS_DIR
    _clear_details(details)
    details.mkdir(exist_ok=True)
    pages = 0
    for rel, text in html.render_details(rs):  # one page at a time: a large run's pages never sit in memory together
        _write(out / rel, text)
        pages += 1
    cov = html.coverage([str(d.path) for d in rs.dirs], coverage_facts) if with_coverage else None
    files = {
        "html": (out / "index.html", html.render_index(rs, coverage_table=cov)),
        "junit": (out / "junit.xml", junit_xml(rs)),
        "summary": (out / "summary.json", json.dumps(summary(rs), indent=2, sort_keys=True) + "\n"),
    }
    for path, text in files.values():
        _write(path, text)
    return {**{k: p for k, (p, _) in files.items()}, "details": details}
