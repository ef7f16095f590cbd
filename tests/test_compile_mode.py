"""The report says how a compiling backend built the models its cases ran on: with dynamic
dimensions, one model per signature, or per input shape where its compiler refused the dynamic
model (issue 17: "say which in the report"). Each result records it (extra.compiled); the first
view, each spec version's page and summary.json show it."""
import json
from collections import Counter

import pytest

from helpers_reports import detail_page, every_verdict, run_json, write_dir
from helpers_runner import rows, run_cli
from opconform.reports import compile_mode
from opconform.reports.resultset import ResultSet
from opconform.reports.summary import summary

# OpenVINO's CPU plugin compiles Abs with dynamic dimensions and GatherND only per shape
SPECS = "onnx::Abs-13,onnx::GatherND-13"


@pytest.fixture(scope="module")
def openvino_run(tmp_path_factory):
    pytest.importorskip("openvino")
    out = tmp_path_factory.mktemp("compiled") / "openvino"
    proc = run_cli("--backend", "openvino", "--spec", SPECS, "--jobs", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


@pytest.mark.backend
def test_each_result_records_how_its_model_was_compiled(openvino_run):
    modes = Counter((r["spec_id"], r["extra"].get("compiled")) for r in rows(openvino_run))
    assert modes[("onnx::Abs-13", "dynamic")] and not modes[("onnx::Abs-13", "per-shape")], modes
    assert modes[("onnx::GatherND-13", "per-shape")] and not modes[("onnx::GatherND-13", "dynamic")], modes
    # a case whose model never compiled (a refusal at build) ran on no model: nothing recorded
    for r in rows(openvino_run):
        if r["verdict"] == "unsupported":
            assert "compiled" not in r["extra"], r


@pytest.mark.backend
def test_the_report_says_which_per_backend_and_spec_version(openvino_run):
    report = openvino_run / "report"
    results = rows(openvino_run)
    per_shape = sum(r["extra"].get("compiled") == "per-shape" for r in results)
    dynamic = sum(r["extra"].get("compiled") == "dynamic" for r in results)
    summary = json.loads((report / "summary.json").read_text())
    assert summary["backends"]["openvino"]["compiled"] == {
        "dynamic_cases": dynamic, "per_shape_cases": per_shape,
        "dynamic_spec_versions": 1, "per_shape_spec_versions": ["onnx::GatherND-13"]}
    index = (report / "index.html").read_text()
    assert f"per input shape where the dynamic model did not compile ({per_shape} cases, 1 spec version(s))" in index
    assert "<code>onnx::GatherND-13</code>" in index.split('class="compiled"')[1].split("</ul>")[0]
    assert "openvino compiled per input shape" in detail_page(report, "openvino", "onnx::GatherND-13")
    assert "openvino compiled with dynamic dimensions" in detail_page(report, "openvino", "onnx::Abs-13")


def test_results_that_record_nothing_give_no_line(tmp_path):
    """An interpreter's results, or a run's from before results recorded it: no claim either way."""
    rs = ResultSet.load([write_dir(tmp_path / "r", every_verdict(), run_json("alpha"))])
    assert compile_mode.by_backend(rs) == {}
    assert "compiled" not in summary(rs)["backends"]["alpha"]
