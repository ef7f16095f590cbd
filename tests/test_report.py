"""`opconform report`: HTML, JUnit XML and JSON summary from results covering every verdict."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest

from helpers_reports import SCRIPT, every_verdict, results_dir, write_dir
from opconform.cli import main
from opconform.model import Verdict
from opconform.reports import tensorview
from opconform.reports.resultset import ResultSet


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
    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count("<script>") == 1  # only the report's own script
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "http://" not in page and "https://" not in page and "src=" not in page
    assert "default-src 'none'" in page and "script-src &#39;sha256-" in page


def test_html_matrix_counts_match_results(report):
    page = (report / "index.html").read_text(encoding="utf-8")
    for spec in ("onnx::GatherND-13", "openvino::GatherND-8"):
        rs = [r for r in every_verdict() if r.spec_id == spec]
        passed = sum(r.verdict is Verdict.PASS for r in rs)
        ran = sum(r.verdict is not Verdict.UNSUPPORTED for r in rs)
        assert f'data-backend="alpha" data-pass="{passed}" data-ran="{ran}" data-total="{len(rs)}"' in page


def test_failure_drill_down_has_replay_command_and_highlight(report, tmp_path):
    page = (report / "index.html").read_text(encoding="utf-8")
    mismatch = next(r for r in every_verdict() if r.verdict is Verdict.MISMATCH)
    assert f"opconform run --backend alpha --replay {tmp_path / 'a'} --case {mismatch.case_id}" in page
    assert 'class="differs"' in page
    assert "600 elements, summarised" in page  # the large input is summarised, not dumped


def test_junit_has_one_testcase_per_case_and_maps_verdicts(report):
    root = ET.parse(report / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    results = every_verdict() * 2
    assert len(cases) == len(results)
    kinds = Counter("skipped" if c.find("skipped") is not None else "error" if c.find("error") is not None
                    else "failure" if c.find("failure") is not None else "pass" for c in cases)
    v = Counter(r.verdict for r in results)
    assert kinds["skipped"] == v[Verdict.UNSUPPORTED]
    assert kinds["error"] == v[Verdict.CRASH] + v[Verdict.TIMEOUT]
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
    assert tensorview.differing(e, g).tolist() == [True, False, True, False]
    assert tensorview.differing(e, g, rtol=0.1).tolist() == [False, False, True, False]
    assert tensorview.differing(e, g.reshape(2, 2)) is None
    s = np.array([SCRIPT, "a"], dtype=object)
    assert tensorview.differing(s, np.array([SCRIPT, "b"], dtype=object)).tolist() == [False, True]


def test_large_tensor_is_summarised_with_stats():
    v = tensorview.view(np.arange(1000, dtype=np.int32))
    assert v.rows is None and "min 0, max 999" in v.summary
    small = tensorview.view(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert [lead for lead, _ in small.rows] == ["[0, :]", "[1, :]"]


def test_torn_last_line_of_a_killed_run_is_left_out_and_shown(tmp_path):
    d = write_dir(tmp_path / "a", every_verdict(), None)
    with (d / "results.jsonl").open("a") as f:
        f.write('{"case_id": "x", "spe')  # killed mid-write: no newline
    assert main(["report", str(d), "--out", str(tmp_path / "o"), "--no-coverage"]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    assert f"line {len(every_verdict()) + 1} of results.jsonl was cut short" in page


@pytest.mark.slow
def test_coverage_table_or_a_visible_note(tmp_path):
    d = results_dir(tmp_path / "a", "alpha")
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


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (2, 0, 5)])
def test_empty_tensors_show_as_empty(shape):
    v = tensorview.view(np.zeros(shape, np.float32), np.zeros(shape, bool))
    assert v.size == 0 and v.rows is None
    assert tensorview.diff(np.zeros(shape), np.zeros(shape), tensorview.differing(np.zeros(shape), np.zeros(shape))).count == 0


def test_every_verdict_has_a_meaning_in_the_legend(report):
    from opconform.reports.html import VERDICT_MEANING

    assert set(VERDICT_MEANING) == {v.value for v in Verdict}
    page = (report / "index.html").read_text()
    assert all(f'<th class="mono">{v.value}</th><td>' in page for v in Verdict)
