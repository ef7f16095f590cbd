"""Factor coverage in the report (issue 11, item 6): per backend and spec version, the pairs (ci)
or triples (certify) of factor values exercised by the valid cases the backend answered, the
missing ones on the detail page, and the factor values the backend does not support (run.json's
"unsupported_factors"), once each; and `opconform coverage --spec` for the generator alone."""
from __future__ import annotations

import json

import pytest

from helpers_reports import detail_page, run_json, write_dir
from opconform import generator, oracle, specs
from opconform.cli import main
from opconform.generator.tuple_coverage import tuple_coverage
from opconform.model import Result, Verdict
from opconform.reports import factor_coverage, links
from opconform.reports.resultset import ResultSet

UNIQUE = "onnx::Unique-11"
MESSAGE = "Could not find an implementation for Unique(11) uint8 <b>node</b>"


@pytest.fixture(scope="module")
def cases():
    spec = specs.load(UNIQUE)
    valid = generator.generate(spec, 12, 3, profile="smoke", expect=oracle.expectation, kind="valid")
    invalid = generator.generate(spec, 3, 3, profile="smoke", expect=oracle.expectation, kind="invalid")
    return spec, valid, invalid


def _results(backend: str, cases, unsupported_type: str) -> list[Result]:
    spec, valid, invalid = cases
    out = []
    for c in valid + invalid:
        verdict = Verdict.UNSUPPORTED if c.inputs[0].dtype.name == unsupported_type else Verdict.PASS
        out.append(Result(c.id, c.spec_id, backend, verdict, case=c.to_json()))
    return out


def _run(backend: str, profile: str = "ci", unsupported: dict | None = None) -> dict:
    run = run_json(backend, profile=profile)
    if unsupported is not None:
        run["unsupported_factors"] = unsupported
    return run


@pytest.fixture
def rendered(tmp_path, cases):
    spec, valid, _ = cases
    kept = valid[0].inputs[0].dtype.name  # one element type the backend "does not support"
    listed = {UNIQUE: [{"factor": "type:T", "value": kept, "message": MESSAGE},
                       {"factor": "attr:sorted", "value": 0, "message": "sorted=0 not implemented"}]}
    a = write_dir(tmp_path / "a", _results("alpha", cases, kept), _run("alpha", unsupported=listed))
    b = write_dir(tmp_path / "b", _results("beta", cases, ""), _run("beta", profile="certify"))
    out = tmp_path / "out"
    assert main(["report", str(a), str(b), "--out", str(out), "--no-coverage"]) == 0
    return out, kept, [a, b]


def test_coverage_counts_only_answered_valid_cases(rendered, cases):
    out, kept, dirs = rendered
    spec, valid, _ = cases
    cov = factor_coverage.of(ResultSet.load(dirs))
    answered = [c for c in valid if c.inputs[0].dtype.name != kept]
    want = tuple_coverage(spec, answered, 2)
    alpha = cov[("alpha", UNIQUE)]
    assert (alpha.t, alpha.total, alpha.exercised, alpha.cases) == (2, want.total, want.exercised, len(answered))
    beta = cov[("beta", UNIQUE)]  # certify: triples, every valid case answered
    every = tuple_coverage(spec, valid, 3)
    assert (beta.t, beta.total, beta.exercised) == (3, every.total, every.exercised)
    assert beta.exercised > 0 and alpha.exercised < want.total
    # every missing tuple holding the unsupported type is counted as out of the backend's reach
    blocked = sum(1 for names, vals in want.missing
                  if any(n == "type:T" and v == kept or n == "attr:sorted" and v == 0 and v is not False
                         for n, v in zip(names, vals)))
    assert alpha.missing_unsupported == blocked


def test_first_view_shows_coverage_per_cell_and_unsupported_count(rendered):
    out, kept, _ = rendered
    index = (out / "index.html").read_text(encoding="utf-8")
    assert '<span class="cov">pairs ' in index and '<span class="cov">triples ' in index
    assert f'href="{links.UNSUPPORTED}#{links.unsupported_id("alpha")}">2</a>' in index
    assert f'href="{links.UNSUPPORTED}#{links.unsupported_id("beta")}">0</a>' in index
    assert MESSAGE not in index  # the messages are on their own page: the first view stays small


def test_detail_page_lists_missing_tuples_and_unsupported_values_escaped(rendered):
    out, kept, dirs = rendered
    page = detail_page(out, "alpha", UNIQUE)
    cov = factor_coverage.of(ResultSet.load(dirs))[("alpha", UNIQUE)]
    assert f"<b>{cov.exercised} of {cov.total}</b> allowed pairs" in page
    assert cov.missing and all(m.replace("<", "&lt;").replace(">", "&gt;") in page for m in cov.missing)
    assert f'<td class="mono">type:T</td><td class="mono">{kept}</td>' in page
    assert "<b>node</b>" not in page and "&lt;b&gt;node&lt;/b&gt;" in page
    unsupported = (out / links.UNSUPPORTED).read_text(encoding="utf-8")
    assert f'id="{links.unsupported_id("alpha")}"' in unsupported and "sorted=0 not implemented" in unsupported
    assert f'href="../{links.page("alpha", UNIQUE)}"' in unsupported
    assert "none listed" in unsupported  # beta's section: nothing recorded


def test_missing_tuples_are_capped(cases, monkeypatch):
    spec, valid, _ = cases
    monkeypatch.setattr(factor_coverage, "MAX_MISSING", 3)
    from opconform.generator.factors import factors
    from opconform.generator.tuple_coverage import required

    fs = factors(spec)
    results = [Result(c.id, c.spec_id, "x", Verdict.PASS, case=c.to_json()) for c in valid[:1]]
    cov = factor_coverage.pair_coverage(spec, fs, required(spec, fs, 2), results, 2)
    assert len(cov.missing) == 3 and cov.missing_total > 3


def test_results_of_a_spec_not_in_the_library_render_with_a_note(tmp_path, cases):
    spec, valid, _ = cases
    doc = valid[0].to_json()
    doc["spec_id"] = "onnx::NoSuchOp-1"
    r = Result(valid[0].id, "onnx::NoSuchOp-1", "alpha", Verdict.PASS, case=doc)
    d = write_dir(tmp_path / "a", [r], _run("alpha", unsupported={"onnx::NoSuchOp-1": "not a list"}))
    cov = factor_coverage.of(ResultSet.load([d]))[("alpha", "onnx::NoSuchOp-1")]
    assert cov.fraction is None and "not in this library" in cov.note
    assert main(["report", str(d), "--out", str(tmp_path / "out"), "--no-coverage"]) == 0


def test_coverage_command_for_the_generator_alone(capsys):
    assert main(["coverage", "--spec", "onnx::Unique-11", "--profile", "smoke", "--seed", "3", "--json",
                 "--jobs", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (item,) = doc["specs"]
    assert item["spec_id"] == UNIQUE and item["error"] is None
    assert [f.split(" ")[0] for f in item["factors"]] == ["type:T", "attr:axis", "attr:sorted", "outputs"]
    (pairs,) = item["strengths"]
    assert pairs["t"] == 2 and 0 < pairs["exercised"] <= pairs["total"]
    assert doc["totals"]["2"] == {"exercised": pairs["exercised"], "total": pairs["total"]}


def test_coverage_command_prints_rows_and_refuses_a_bad_pattern(capsys):
    assert main(["coverage", "--spec", "onnx::LayerNormalization-17", "--profile", "ci", "--seed", "11",
                 "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("onnx::LayerNormalization-17: 6 factors, ") and " rows, 0 infeasible" in out
    assert "pairs " in out and "factor attr:epsilon" in out
    assert main(["coverage", "--spec", "onnx::NoSuchOp*"]) == 2
