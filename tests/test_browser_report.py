"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium driven by playwright):
the first view loads without console errors or network, the matrix shows the right counts, its sort
toggle switches between worst first and by name, filters work, a failure group's link opens its
detail page at the failure, a string tensor holding <script> shows as text and never runs, and the
first view stays small for a moderate results set."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers_reports import GATHER, OV_GATHER, SCRIPT, every_verdict, many_failures, passing, results_dir, run_json, write_dir
from opconform.model import Verdict
from opconform.reports import groups, links
from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
ABS = "onnx::Abs-13"  # passes everywhere: first by name, last worst first


def _need(what: str, ok: bool) -> None:
    """In CI a missing browser is a failure of the environment, never a silent skip."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required in CI (apt-get install -y chromium; pip install playwright)")
    pytest.skip(f"{what} not available here")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _need(CHROMIUM, Path(CHROMIUM).exists() or shutil.which("chromium") is not None)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright (Python)", False)
    base = tmp_path_factory.mktemp("browser")
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
        yield pg, problems, base
        ctx.close()


@pytest.fixture(scope="module")
def report(browser):
    _, _, base = browser
    a = write_dir(base / "a", every_verdict("alpha") + passing(ABS, "alpha"), run_json("alpha"))
    b = results_dir(base / "b", "beta")
    out = base / "report"
    write_report(ResultSet.load([a, b]), out, with_coverage=False)  # coverage runs the official cases: slow, tested elsewhere
    return out


@pytest.fixture
def index(browser, report):
    pg, problems, base = browser
    pg.goto((report / "index.html").as_uri())
    pg.wait_for_load_state("load")
    return pg, problems, base


def _order(pg) -> list[str]:
    return pg.eval_on_selector_all("table.matrix tbody tr", "rows => rows.map(r => r.getAttribute('data-spec'))")


def test_loads_without_console_errors_or_network(index):
    pg, problems, _ = index
    assert pg.title() == "opconform conformance report"
    assert problems == []
    assert pg.locator("#f-count").inner_text() == "3 of 3 spec versions shown"  # the script ran


def test_matrix_shows_the_right_counts(index):
    pg, _, _ = index
    results = every_verdict()
    for spec in (GATHER, OV_GATHER):
        mine = [r for r in results if r.spec_id == spec]
        passed = sum(r.verdict is Verdict.PASS for r in mine)
        ran = sum(r.verdict.ran for r in mine)  # a harness error is no answer of the backend's either
        for b in ("alpha", "beta"):
            cell = pg.locator(f'table.matrix tr[data-spec="{spec}"] td[data-backend="{b}"] .frac')
            assert cell.inner_text() == f"{passed}/{ran}"
        total = pg.locator(f'table.matrix tr[data-spec="{spec}"] td.cell .frac').last
        assert total.inner_text() == f"{2 * passed}/{2 * ran}"
    assert pg.locator(f'table.matrix tr[data-spec="{ABS}"] td[data-backend="beta"]').inner_text() == "not run"


def test_sort_toggle_switches_between_worst_first_and_by_name(index):
    pg, problems, _ = index
    # GatherND-13 passes 3 of 11 run, GatherND-8 1 of 3, Abs-13 all: worst first differs from by name
    assert _order(pg) == [GATHER, OV_GATHER, ABS]
    pg.click("#sort-toggle")
    assert _order(pg) == [ABS, GATHER, OV_GATHER]
    assert pg.locator("#sort-toggle").inner_text() == "sort worst first"
    pg.click("#sort-toggle")
    assert _order(pg) == [GATHER, OV_GATHER, ABS]
    assert problems == []


def test_filters_hide_what_does_not_match(index):
    pg, _, _ = index
    pg.select_option("#f-verdict", "crash")
    assert not pg.locator(f'table.matrix tr[data-spec="{GATHER}"]').is_visible()
    assert pg.locator(f'table.matrix tr[data-spec="{OV_GATHER}"]').is_visible()
    assert pg.locator("#f-count").inner_text() == "1 of 3 spec versions shown"
    groups = pg.locator("table.groups tbody tr")
    assert all(v == "crash" for v in groups.evaluate_all("rows => rows.filter(r => !r.hidden).map(r => r.dataset.verdicts)"))
    pg.select_option("#f-verdict", "")
    pg.select_option("#f-dialect", "onnx")
    assert not pg.locator(f'table.matrix tr[data-spec="{OV_GATHER}"]').is_visible()
    pg.click("#f-reset")
    assert pg.locator(f'table.matrix tr[data-spec="{OV_GATHER}"]').is_visible()


def test_failure_group_link_opens_its_page_at_the_failure_and_script_shows_as_text(index):
    pg, problems, base = index
    case = next(r for r in every_verdict() if r.verdict is Verdict.MISMATCH and SCRIPT in r.detail)
    group = links.group_id("mismatch", groups.symptom_of(case))
    href = f"{links.page('alpha', GATHER)}#{group}"
    pg.click(f'table.groups a[href="{href}"] >> nth=0')
    pg.wait_for_load_state("load")
    assert pg.url.endswith(href)
    assert pg.locator(f"#{group}").is_visible()
    details = pg.locator(f'details.failure[data-case="{case.case_id}"]')
    drill = details.locator(".drill")
    if not details.evaluate("el => el.open"):  # the group's first case is open; the others open on click
        details.locator("summary").click()
    assert drill.is_visible()
    text = drill.inner_text()
    assert SCRIPT in text  # the string tensor and the backend's message, as text
    assert f"opconform run --backend alpha --replay {base / 'a'} --case {case.case_id}" in text
    assert drill.locator("td.differs").count() >= 1
    assert pg.locator("script").count() == 0  # a detail page has no script at all
    assert pg.evaluate("typeof window.__pwned") == "undefined"
    details.scroll_into_view_if_needed()
    shot = base / "drill-down.png"
    pg.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    pg.click("text=\u2190 report")  # back to the first view
    pg.wait_for_load_state("load")
    assert pg.title() == "opconform conformance report"
    assert problems == []


def test_matrix_cell_opens_its_spec_version_page(index):
    pg, problems, _ = index
    pg.click(f'table.matrix tr[data-spec="{OV_GATHER}"] td[data-backend="beta"] a')
    pg.wait_for_load_state("load")
    assert pg.locator("h1").inner_text().startswith(f"{OV_GATHER} on beta")
    assert pg.locator('details.failure[data-verdicts="crash"]').count() == 1
    assert problems == []


def test_first_view_of_a_moderate_results_set_stays_small(browser, tmp_path):
    """30 spec versions on 2 backends, 25 failing cases each: the first view holds the matrix and
    the failure groups, not the 1,500 failing cases."""
    pg, problems, _ = browser
    dirs = []
    for b in ("alpha", "beta"):
        results = [r for k in range(30) for r in many_failures(25, b, f"onnx::Op{k:02d}-13")]
        dirs.append(write_dir(tmp_path / b, results, run_json(b)))
    out = tmp_path / "report"
    write_report(ResultSet.load(dirs), out, with_coverage=False)
    assert (out / "index.html").stat().st_size < 100_000  # 1,500 failing cases shown would be megabytes
    assert len(list((out / "details").glob("d-*.html"))) == 60
    pg.goto((out / "index.html").as_uri())
    pg.wait_for_load_state("load")
    assert pg.locator("#f-count").inner_text() == "30 of 30 spec versions shown"
    assert pg.locator("table.groups tbody tr").count() == 60
    assert problems == []


def test_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        _need("/nonexistent/chromium", False)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not available here"):
        _need("/nonexistent/chromium", False)
