"""The stress report: the log-log SVG plot (reports/stress_plot.py) and the first view's stress
section (reports/stress_view.py), slow ladders first."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from opconform.model import Result, Verdict
from opconform.reports import html, stress_view
from opconform.reports.resultset import ResultSet
from opconform.reports.stress_plot import Series, decades, plot

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_the_plot_is_well_formed_svg_with_a_line_and_a_point_per_measurement():
    svg = plot([Series("distinct", [(100, 1e-4), (1000, 1e-3), (10_000, 1e-1)]),
                Series("distinct (oracle)", [(100, 1e-4), (1000, 2e-4)], dashed=True)], title="onnx::Unique-11")
    root = parse(svg)
    lines = root.findall(f"{SVG}polyline")
    assert len(lines) == 2
    assert lines[1].get("stroke-dasharray") and not lines[0].get("stroke-dasharray")
    assert len(root.findall(f"{SVG}circle")) == 5
    assert "onnx::Unique-11" in "".join(root.itertext())


def test_log_axes_place_bigger_sizes_right_and_longer_times_higher():
    root = parse(plot([Series("s", [(100, 1e-4), (10_000, 1e-1)])]))
    (a, b) = [(float(c.get("cx")), float(c.get("cy"))) for c in root.findall(f"{SVG}circle")]
    assert b[0] > a[0] and b[1] < a[1]  # SVG's y grows downwards
    # a log scale: equal ratios are equal distances
    root = parse(plot([Series("s", [(100, 1e-3), (1000, 1e-2), (10_000, 1e-1)])]))
    xs = [float(c.get("cx")) for c in root.findall(f"{SVG}circle")]
    assert abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2


def test_labels_are_escaped_and_points_a_log_axis_cannot_hold_are_left_out():
    root = parse(plot([Series("<script>alert(1)</script>", [(0, 1.0), (100, 0.0), (1000, 1e-3), (10_000, 1e-2)])],
                      title="a & b"))
    assert not root.findall(f".//{SVG}script")
    assert "<script>alert(1)</script>" in "".join(root.itertext())  # as text, not as an element
    assert len(root.findall(f"{SVG}circle")) == 2


def test_decades_cover_the_values():
    assert decades([150, 9e6]) == (2, 7)
    assert decades([1e-4, 2e-4]) == (-4, -3)


def ladder(backend: str, spec_id: str, case: str, verdict: Verdict, slope: float) -> Result:
    table = [{"n": n, "backend_seconds": 1e-9 * n ** slope, "oracle_seconds": 1e-8 * n} for n in (1000, 10_000, 100_000)]
    return Result(case_id=f"{backend}{case}", spec_id=spec_id, backend=backend, verdict=verdict, detail=f"{case} evidence",
                  extra={"stress_ladder": {"case": case, "complexity": "n log n", "slope": slope, "expected_slope": 1.1,
                                           "ratio": 3.0, "ratio_at": 100_000, "table": table, "stopped": "the top of the ladder"}})


def rung(backend: str, spec_id: str, case: str, n: int, seconds: float) -> Result:
    return Result(case_id=f"{backend}{case}{n}", spec_id=spec_id, backend=backend, verdict=Verdict.PASS,
                  extra={"stress": {"ladder": case, "n": n, "backend_seconds": seconds, "oracle_seconds": seconds / 10}})


def result_set(results: list[Result]) -> ResultSet:
    return ResultSet([], results)


def test_the_stress_section_lists_slow_ladders_first_and_plots_each_spec_version():
    results = [ladder("b1", "onnx::Unique-11", "all_equal", Verdict.PASS, 1.0),
               ladder("b1", "onnx::Unique-11", "distinct", Verdict.SLOW, 2.0),
               rung("b1", "onnx::Unique-11", "distinct", 1000, 1e-3), rung("b1", "onnx::Unique-11", "distinct", 10_000, 1e-1),
               rung("b1", "onnx::GatherND-13", "many_small_slices", 1000, 1e-4)]
    view = stress_view.of(result_set(results))
    assert [r.verdict for r in view.ladders] == ["slow", "pass"]
    assert view.slow == 1
    assert [(p.backend, p.spec_id) for p in view.plots] == [("b1", "onnx::GatherND-13"), ("b1", "onnx::Unique-11")]
    unique = parse(str(view.plots[1].svg))
    assert len(unique.findall(f"{SVG}polyline")) == 2  # the backend and the oracle of its one ladder with two sizes


def test_no_stress_section_without_a_stress_run():
    assert stress_view.of(result_set([Result("c", "onnx::Abs-13", "b", Verdict.PASS)])) is None


def test_the_first_view_draws_the_section(tmp_path):
    (tmp_path / "results.jsonl").write_text(
        "".join(json.dumps(r.to_json()) + "\n" for r in [ladder("b1", "onnx::Unique-11", "distinct", Verdict.SLOW, 2.0),
                                                          rung("b1", "onnx::Unique-11", "distinct", 1000, 1e-3),
                                                          rung("b1", "onnx::Unique-11", "distinct", 10_000, 1e-1)]))
    (tmp_path / "run.json").write_text(json.dumps({"backend": "b1", "profile": "stress"}))
    page = html.render_index(ResultSet.load([tmp_path]))
    assert 'id="stress"' in page and "<svg" in page and "distinct evidence" in page
    assert page.index('id="stress"') < page.index('id="matrix"')
