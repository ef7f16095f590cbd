"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium driven by playwright):
it loads without console errors, the matrix shows the right counts, a failure's drill-down opens,
filters work, and a string tensor holding <script> shows as text and never runs."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers_reports import SCRIPT, every_verdict, results_dir
from opconform.model import Verdict
from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _need(what: str, ok: bool) -> None:
    """In CI a missing browser is a failure of the environment, never a silent skip."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required in CI (apt-get install -y chromium; pip install playwright)")
    pytest.skip(f"{what} not available here")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    _need(CHROMIUM, Path(CHROMIUM).exists() or shutil.which("chromium") is not None)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright (Python)", False)
    base = tmp_path_factory.mktemp("browser")
    rs = ResultSet.load([results_dir(base / "a", "alpha"), results_dir(base / "b", "beta")])
    out = base / "report"
    write_report(rs, out, with_coverage=False)  # coverage runs the official cases: slow, tested elsewhere
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(base / "profile"), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        pg = ctx.new_page()
        problems: list[str] = []
        pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
        pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        pg.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file://") else None)
        pg.goto((out / "index.html").as_uri())
        pg.wait_for_load_state("load")
        yield pg, problems, base
        ctx.close()


def test_loads_without_console_errors_or_network(page):
    pg, problems, _ = page
    assert pg.title() == "opconform conformance report"
    assert problems == []
    assert pg.locator("#f-count").inner_text() == "4 spec \u00d7 backend sections shown"  # the script ran


def test_matrix_shows_the_right_counts(page):
    pg, _, _ = page
    results = every_verdict()
    for spec in ("onnx::GatherND-13", "openvino::GatherND-8"):
        mine = [r for r in results if r.spec_id == spec]
        passed = sum(r.verdict is Verdict.PASS for r in mine)
        ran = sum(r.verdict is not Verdict.UNSUPPORTED for r in mine)
        for b in ("alpha", "beta"):
            cell = pg.locator(f'table.matrix tr[data-spec="{spec}"] td[data-backend="{b}"] .frac')
            assert cell.inner_text() == f"{passed}/{ran}"
        total = pg.locator(f'table.matrix tr[data-spec="{spec}"] td.cell .frac').last
        assert total.inner_text() == f"{2 * passed}/{2 * ran}"


def test_failure_drill_down_opens_and_script_shows_as_text(page):
    pg, problems, base = page
    case = next(r for r in every_verdict() if r.verdict is Verdict.MISMATCH and SCRIPT in r.detail)
    details = pg.locator(f'section.pair[id*="alpha"] details.failure[data-case="{case.case_id}"]').first
    drill = details.locator(".drill")
    assert not drill.is_visible()
    details.locator("summary").click()
    assert drill.is_visible()
    assert details.evaluate("el => el.open") is True
    text = drill.inner_text()
    assert SCRIPT in text  # the string tensor and the backend's message, as text
    assert f"opconform run --backend alpha --replay {base / 'a'} --case {case.case_id}" in text
    assert drill.locator("td.differs").count() >= 1
    assert drill.locator("script").count() == 0
    assert pg.evaluate("typeof window.__pwned") == "undefined"
    details.scroll_into_view_if_needed()
    shot = base / "drill-down.png"
    pg.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert problems == []


def test_filters_hide_what_does_not_match(page):
    pg, _, _ = page
    pg.select_option("#f-verdict", "crash")
    assert not pg.locator('table.matrix tr[data-spec="onnx::GatherND-13"]').is_visible()
    assert pg.locator('table.matrix tr[data-spec="openvino::GatherND-8"]').is_visible()
    assert pg.locator("#f-count").inner_text().startswith("2 ")
    pg.select_option("#f-verdict", "")
    pg.select_option("#f-dialect", "onnx")
    assert not pg.locator('table.matrix tr[data-spec="openvino::GatherND-8"]').is_visible()
    pg.click("#f-reset")
    assert pg.locator('table.matrix tr[data-spec="openvino::GatherND-8"]').is_visible()


def test_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        _need("/nonexistent/chromium", False)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not available here"):
        _need("/nonexistent/chromium", False)
