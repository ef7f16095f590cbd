"""`opconform report`: the first view (index.html), one detail page per backend and spec version,
JUnit XML and JSON summary, from results covering every verdict."""
from __future__ import annotations

import json
import re
import warnings
import xml.etree.ElementTree as ET
from collections import Counter

import ml_dtypes
import numpy as np
import pytest

from helpers_reports import (GATHER, OV_GATHER, SCRIPT, detail_page, every_verdict, many_failures, report_pages,
                             results_dir, run_json, write_dir)
from opconform import compare
from opconform.cli import main
from opconform.model import Tolerance, Verdict
from opconform.reports import groups, html, links, matrix, pairs, tensorview
from opconform.reports.resultset import ResultSet
from opconform.reports.write import write_report


@pytest.fixture
def report(tmp_path):
    a = results_dir(tmp_path / "a", "alpha")
    b = results_dir(tmp_path / "b", "beta")
    out = tmp_path / "out"
    # the coverage table runs every official ONNX case (tens of seconds): see test_coverage_table
    assert main(["report", str(a), str(b), "--out", str(out), "--no-coverage"]) == 0
    return out


def test_every_verdict_is_in_the_fixture():
    assert {r.verdict for r in every_verdict()} == set(Verdict)


def test_html_is_self_contained_and_escapes_backend_text(report):
    pages = report_pages(report)
    assert "index.html" in pages and any(name.startswith("details/d-") for name in pages)
    for name, page in pages.items():
        assert page.count("<script>") == (1 if name == "index.html" else 0), name  # only the first view's own script
        assert "http://" not in page and "https://" not in page and "src=" not in page, name
        assert "default-src &#39;none&#39;" in page, name
    assert "script-src &#39;sha256-" in pages["index.html"]
    detail = detail_page(report, "alpha", GATHER)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in detail
    assert "<b>bold</b>" not in detail and "&lt;b&gt;bold&lt;/b&gt;" in detail


def test_html_matrix_counts_match_results(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    for spec in ("onnx::GatherND-13", "openvino::GatherND-8"):
        rs = [r for r in every_verdict() if r.spec_id == spec]
        passed = sum(r.verdict is Verdict.PASS for r in rs)
        ran = sum(r.verdict.ran for r in rs)
        assert f'data-backend="alpha" data-pass="{passed}" data-ran="{ran}" data-total="{len(rs)}"' in page


def test_matrix_cells_and_failure_groups_link_to_pages_that_exist(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    hrefs = set(re.findall(r'href="(details/[^"]+)"', page))
    assert hrefs
    for href in hrefs:
        file, _, fragment = href.partition("#")
        target = (report / file).read_text(encoding="utf-8")
        assert not fragment or f'id="{fragment}"' in target, href
    assert f'href="{links.page("alpha", GATHER)}"' in page  # the matrix cell
    crash = next(r for r in every_verdict("beta") if r.verdict is Verdict.CRASH)
    assert f'href="{links.page("beta", OV_GATHER)}#{links.group_id("crash", groups.symptom_of(crash))}"' in page  # a failure group


def test_first_view_holds_no_failing_case(report):
    """Inputs, expected against got and replay live on the detail pages only; the one exception is
    the capped list of cases where backends agree against the spec (issue 14), which shows outputs."""
    page = (report / "index.html").read_text(encoding="utf-8")
    page = re.sub(r'<section id="consensus".*?</section>', "", page, flags=re.S)
    assert 'class="failure"' not in page and "--replay" not in page and 'class="tensor"' not in page


def test_matrix_is_worst_first_and_knows_its_order_by_name(tmp_path):
    good = [r for r in every_verdict() if r.spec_id == OV_GATHER and r.verdict is Verdict.PASS]
    worse = many_failures(3)
    d = write_dir(tmp_path / "a", good + worse, run_json("alpha"))
    assert main(["report", str(d), "--out", str(tmp_path / "o"), "--no-coverage"]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    rows = re.findall(r'<tr data-filter [^>]*data-spec="([^"]+)" data-name-rank="(\d+)" data-worst-rank="(\d+)"', page)
    assert [spec for spec, _, _ in rows] == [GATHER, OV_GATHER]  # 0% before 100%, though "onnx" sorts first either way
    assert {spec: int(n) for spec, n, _ in rows} == {GATHER: 0, OV_GATHER: 1}
    assert [int(w) for _, _, w in rows] == [0, 1]
    ranks = [row.worst_key() for row in matrix.rows(ResultSet.load([d]), ResultSet.load([d]).tallies())]
    assert ranks == sorted(ranks)


def test_failure_drill_down_has_replay_command_and_highlight(report, tmp_path):
    page = detail_page(report, "alpha", GATHER)
    mismatch = next(r for r in every_verdict() if r.verdict is Verdict.MISMATCH)
    assert f"opconform run --backend alpha --replay {tmp_path / 'a'} --case {mismatch.case_id}" in page
    assert 'class="differs"' in page
    assert "600 elements, summarised" in page  # the large input is summarised, not dumped


def test_replay_names_the_backend_as_the_run_was_started_and_an_absolute_path(tmp_path, monkeypatch):
    """Results name a plugin backend by its class's `name`, which --backend does not take; run.json
    holds what the run was started with. The path is absolute, whatever directory rendered it."""
    plugin = "some_pkg.backends:Alpha"
    write_dir(tmp_path / "a", every_verdict(), {**run_json("alpha"), "backend": plugin})
    monkeypatch.chdir(tmp_path)
    assert main(["report", "a", "--out", "o", "--no-coverage"]) == 0
    page = detail_page(tmp_path / "o", "alpha", GATHER)
    case = next(r for r in every_verdict() if r.verdict is Verdict.MISMATCH)
    assert f"opconform run --backend {plugin} --replay {tmp_path / 'a'} --case {case.case_id}" in page
    assert str(tmp_path / "a") in (tmp_path / "o" / "index.html").read_text()  # the runs table too
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["runs"][0]["dir"] == str(tmp_path / "a")


def test_first_view_size_grows_with_spec_versions_not_failures(tmp_path):
    sizes = {}
    for n in (5, 400):
        d = write_dir(tmp_path / f"r{n}", many_failures(n), run_json("alpha"))
        out = tmp_path / f"o{n}"
        assert main(["report", str(d), "--out", str(out), "--no-coverage"]) == 0
        sizes[n] = (out / "index.html").stat().st_size
        detail = detail_page(out, "alpha", GATHER)
        shown = detail.count('<details class="failure"')
        assert shown == min(n, pairs.MAX_FAILURES_PER_GROUP)
        if n > pairs.MAX_FAILURES_PER_GROUP:
            assert f"{n - pairs.MAX_FAILURES_PER_GROUP} more failing cases of this group are not shown" in detail
    assert abs(sizes[400] - sizes[5]) < 200  # the same one failure group: only its count differs
    assert sizes[400] < 40_000


def test_first_view_lists_the_biggest_failure_groups_and_links_all(tmp_path, monkeypatch):
    monkeypatch.setattr(html, "MAX_GROUPS_ON_FIRST_VIEW", 3)
    a = results_dir(tmp_path / "a", "alpha")
    assert main(["report", str(a), "--out", str(tmp_path / "o"), "--no-coverage"]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    total = len({(r.spec_id, groups.key(r)) for r in every_verdict() if r.verdict.is_failure or r.verdict is Verdict.HARNESS_ERROR})
    assert len(re.findall(r'<tr data-filter [^>]*data-backend="alpha" data-spec=', page)) == 3  # group rows
    assert f'<a href="{links.ALL_GROUPS}">all {total} failure groups</a>' in page
    every = (tmp_path / "o" / links.ALL_GROUPS).read_text()
    assert every.count("<tr data-filter") == total and every.count('href="../details/d-') == 2 * total


def test_pages_of_an_earlier_report_in_the_same_directory_go(tmp_path):
    a = results_dir(tmp_path / "a", "alpha")
    b = results_dir(tmp_path / "b", "beta")
    out = tmp_path / "o"
    assert main(["report", str(a), str(b), "--out", str(out), "--no-coverage"]) == 0
    (out / "details" / "notes.txt").write_text("mine")
    assert main(["report", str(a), "--out", str(out), "--no-coverage"]) == 0
    assert not (out / links.page("beta", GATHER)).exists() and (out / links.page("alpha", GATHER)).exists()
    assert (out / "details" / "notes.txt").read_text() == "mine"


def test_junit_has_one_testcase_per_case_and_maps_verdicts(report):
    root = ET.parse(report / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    results = every_verdict() * 2
    assert len(cases) == len(results)
    kinds = Counter("skipped" if c.find("skipped") is not None else "error" if c.find("error") is not None
                    else "failure" if c.find("failure") is not None else "pass" for c in cases)
    v = Counter(r.verdict for r in results)
    assert kinds["skipped"] == v[Verdict.UNSUPPORTED]
    assert kinds["error"] == v[Verdict.CRASH] + v[Verdict.TIMEOUT] + v[Verdict.HARNESS_ERROR]
    assert sum(c.find("error").get("type") == "harness-error" for c in cases if c.find("error") is not None) == \
        v[Verdict.HARNESS_ERROR]  # opconform's own failure: an error of the test run, never the backend's failure
    assert kinds["pass"] == v[Verdict.PASS]
    assert int(root.get("tests")) == len(results)
    skipped = next(c for c in cases if c.find("skipped") is not None).find("skipped")
    assert "float64" in skipped.get("message")


def test_summary_json(report):
    s = json.loads((report / "summary.json").read_text())
    alpha = s["backends"]["alpha"]
    results = every_verdict()
    assert alpha["cases"] == len(results)
    assert alpha["verdicts"] == {k: n for k, n in Counter(r.verdict.value for r in results).items()}
    assert alpha["specs"]["onnx::GatherND-13"]["status"] == "fail"
    assert len(s["failures"]) == 2 * sum(r.verdict.is_failure for r in results)
    # opconform's own failures are listed apart, never among the backend's
    assert len(s["harness_errors"]) == 2 * sum(r.verdict is Verdict.HARNESS_ERROR for r in results) > 0
    assert not any(f["verdict"] == "harness-error" for f in s["failures"])


def test_report_of_missing_dir_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nope" in err


def test_report_of_corrupt_line_names_the_line(tmp_path, capsys):
    d = write_dir(tmp_path / "a", every_verdict(), None)
    with (d / "results.jsonl").open("a") as f:
        f.write('{"case_id": "x", "spec_\n')
    assert main(["report", str(d), "--out", str(tmp_path / "o")]) == 2
    assert f"results.jsonl:{len(every_verdict()) + 1}:" in capsys.readouterr().err


def test_report_without_run_json_still_renders(tmp_path):
    d = write_dir(tmp_path / "a", every_verdict(), None)
    assert main(["report", str(d), "--out", str(tmp_path / "o"), "--no-coverage"]) == 0
    assert "has no run.json" in (tmp_path / "o" / "index.html").read_text()


def test_later_result_for_same_case_wins(tmp_path):
    rs = every_verdict()
    again = rs[2]
    again.verdict = Verdict.PASS
    d = write_dir(tmp_path / "a", rs + [again], None)
    loaded = ResultSet.load([d])
    assert len(loaded.results) == len(rs)
    assert next(r for r in loaded.results if r.case_id == again.case_id).verdict is Verdict.PASS


def test_differing_marks_only_elements_outside_tolerance():
    e = np.array([1.0, np.nan, 3.0, -0.0], dtype=np.float32)
    g = np.array([1.05, np.nan, 4.0, 0.0], dtype=np.float32)
    assert compare.differing(g, e).tolist() == [True, False, True, False]
    assert compare.differing(g, e, compare.Rules(Tolerance(rtol=0.1))).tolist() == [False, False, True, False]
    assert compare.differing(g.reshape(2, 2), e) is None
    s = np.array([SCRIPT, "a"], dtype=object)
    assert compare.differing(np.array([SCRIPT, "b"], dtype=object), s).tolist() == [False, True]


def test_large_tensor_is_summarised_with_stats():
    v = tensorview.view(np.arange(1000, dtype=np.int32))
    assert v.rows is None and "min 0, max 999" in v.summary
    small = tensorview.view(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert [lead for lead, _ in small.rows] == ["[0, :]", "[1, :]"]


def test_torn_last_line_of_a_killed_run_is_left_out_and_shown(tmp_path, capsys):
    d = write_dir(tmp_path / "a", every_verdict(), None)
    with (d / "results.jsonl").open("a") as f:
        f.write('{"case_id": "x", "spe')  # killed mid-write: no newline
    assert main(["report", str(d), "--out", str(tmp_path / "o"), "--no-coverage"]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    n = len(every_verdict()) + 1
    assert f"line {n} of results.jsonl was cut short" in page
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line, naming the file and the line dropped
    assert f"{d / 'results.jsonl'}: line {n} was cut short" in err and "that one line was dropped" in err


def test_intact_results_print_no_warning(report, capsys):
    assert "warning" not in capsys.readouterr().err


@pytest.mark.slow
def test_coverage_table_or_a_visible_note(tmp_path):
    d = results_dir(tmp_path / "a", "alpha")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the official cases' relation checks print nothing either
        assert main(["report", str(d), "--out", str(tmp_path / "o")]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    try:
        import opconform.reports.coverage  # noqa: F401 -- owned by the breadth tools
    except ImportError:
        assert "coverage not available" in page
    else:
        assert '<table class="coverage">' in page and "<td>GatherND</td>" in page


def test_no_coverage_says_so(report):
    assert "coverage not available: not computed" in (report / "index.html").read_text()


def test_edge_values_render_without_numpy_warnings():
    """Signalling NaNs, infinities and values at the float64 limit are what the generator draws on
    purpose; summarising and comparing them must not print RuntimeWarnings (issue 10: 18 per ci report)."""
    snan = np.array([0x7FA00000, 0, 0x7F800000, 0xFF800000], dtype=np.uint32).view(np.float32)  # sNaN, 0, inf, -inf
    huge = np.array([1.7e308, 1.7e308, -1.7e308, 1.0] * 20)
    with np.errstate(invalid="ignore"):
        bf16 = snan.astype(ml_dtypes.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for a in (snan, huge, bf16, np.tile(snan, 20)):
            tensorview.view(a)
            compare.differing(a[::-1].copy(), a)
        assert "mean 4.25e+307" in tensorview.view(huge).summary  # exact, not inf or nan
        assert compare.differing(-huge, huge).tolist() == [True] * huge.size
        assert compare.differing(snan, snan).tolist() == [False] * 4  # NaN equals NaN, inf equals inf


def test_rendering_every_verdict_warns_nothing(tmp_path):
    a = results_dir(tmp_path / "a", "alpha")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_report(ResultSet.load([a]), tmp_path / "o", with_coverage=False)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (2, 0, 5)])
def test_empty_tensors_show_as_empty(shape):
    v = tensorview.view(np.zeros(shape, np.float32), np.zeros(shape, bool))
    assert v.size == 0 and v.rows is None
    assert tensorview.diff(np.zeros(shape), np.zeros(shape), compare.differing(np.zeros(shape), np.zeros(shape))).count == 0


def test_every_verdict_has_a_meaning_in_the_legend(report):
    from opconform.reports.html import VERDICT_MEANING

    assert set(VERDICT_MEANING) == {v.value for v in Verdict}
    page = (report / "index.html").read_text()
    assert all(f'<th class="mono">{v.value}</th><td>' in page for v in Verdict)
