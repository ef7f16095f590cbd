"""`opconform diff`: an ONNX version and the OpenVINO one mapped onto it side by side, and the
drawn inputs where their oracles disagree; docs/dialect-diff.md and docs/openvino-errata.md are
generated from it and must be up to date."""
from __future__ import annotations

from pathlib import Path

import pytest

from opconform.cli import main
from opconform.commands import diff as diff_command
from opconform.oracle.openvino import dialect_diff
from opconform.reports import dialect_diff as render

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gathernd():
    return dialect_diff.diff("onnx::GatherND-13", "openvino::GatherND-8", count=30, seed=0)


def test_side_by_side_pairs_declarations(gathernd):
    rows = {(r.section, r.name): r for r in gathernd.rows}
    assert rows[("inputs", "indices")].differs  # int64 against any integer type
    assert "int64" in rows[("inputs", "indices")].onnx and "int8" in rows[("inputs", "indices")].openvino
    batch = rows[("attributes", "batch_dims")]
    assert "default 0" in batch.onnx and "default 0" in batch.openvino and not batch.differs
    assert rows[("relations", "indices_in_range")].openvino.startswith("indices_in_range (undefined)")
    assert ("stated differences", "negative_indices") in rows


def test_disagreements_found_with_a_smallest_case(gathernd):
    kinds = {(d.kind, d.what): d for d in gathernd.disagreements}
    # ONNX counts a negative index from the end; OpenVINO's text requires [0, s-1]
    negative = kinds[("openvino-undefined", "indices_in_range")]
    assert any((x < 0).any() for x in negative.onnx_inputs[1:] if x is not None)
    assert ("onnx-refuses", "indices_type") in kinds  # int8..uint64 indices
    for d in gathernd.disagreements:
        assert d.count >= 1 and d.onnx_result and d.openvino_result


def test_outputs_that_differ_are_found():
    d = dialect_diff.diff("onnx::Div-14", "openvino::Divide-1", count=40, seed=0)
    differ = [x for x in d.disagreements if x.kind == "outputs-differ"]
    assert differ, [(x.kind, x.what) for x in d.disagreements]  # floor against truncating integer division


def test_command_prints_text_markdown_and_html(capsys, tmp_path):
    assert main(["diff", "onnx::GatherND-13", "openvino::GatherND-8", "--count", "8"]) == 0
    out = capsys.readouterr().out
    assert "onnx::GatherND-13  <->  openvino::GatherND-8" in out and "disagreements:" in out
    assert main(["diff", "onnx::GatherND-13", "openvino::GatherND-8", "--count", "8", "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("## onnx::GatherND-13 / openvino::GatherND-8")
    page = tmp_path / "d.html"
    assert main(["diff", "onnx::GatherND-13", "openvino::GatherND-8", "--count", "8", "--html", "--out", str(page)]) == 0
    assert "<table>" in page.read_text() and "script" not in page.read_text()


def test_command_mistakes_are_one_line(capsys):
    assert main(["diff", "onnx::GatherND-13"]) == 2
    assert main(["diff", "onnx::GatherND-13", "openvino::Bucketize-3"]) == 2  # no mapping
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "maps_to" in err[1]


def test_every_mapped_pair_is_listed():
    pairs = dialect_diff.mapped_pairs()
    assert len(pairs) >= 60
    doc = (ROOT / "docs" / "dialect-diff.md").read_text()
    for onnx_id, ov_id in pairs:
        assert f"## {onnx_id} / {ov_id}" in doc, ov_id


def test_errata_page_is_up_to_date():
    assert (ROOT / "docs" / "openvino-errata.md").read_text() == diff_command.errata(), \
        f"regenerate: {diff_command.ERRATA_COMMAND}"


@pytest.mark.slow
def test_dialect_diff_page_is_up_to_date():
    assert (ROOT / "docs" / "dialect-diff.md").read_text() == diff_command.documents(), \
        f"regenerate: {diff_command.DOC_COMMAND}"


def test_markdown_escapes_table_cells(gathernd):
    md = render.markdown(gathernd)
    for line in md.splitlines():
        if line.startswith("| ") and "aspect" not in line and "---" not in line:
            assert line.count(" | ") - line.count("\\|") >= 3, line
