"""Writing a report directory: index.html, junit.xml and summary.json from one ResultSet."""
from __future__ import annotations

import json
import os
from pathlib import Path

from opconform.reports import html
from opconform.reports.junit import junit_xml
from opconform.reports.resultset import ResultSet
from opconform.reports.summary import summary


def write_report(rs: ResultSet, out: str | os.PathLike, *, with_coverage: bool = True) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cov = html.coverage([str(d.path) for d in rs.dirs]) if with_coverage else None
    files = {
        "html": (out / "index.html", html.render(rs, coverage_table=cov)),
        "junit": (out / "junit.xml", junit_xml(rs)),
        "summary": (out / "summary.json", json.dumps(summary(rs), indent=2, sort_keys=True) + "\n"),
    }
    for path, text in files.values():
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
    return {k: p for k, (p, _) in files.items()}
