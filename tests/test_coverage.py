"""`opconform coverage` and opconform.reports.coverage: the table of every standard ONNX operator."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from opconform import cli, oracle, specs
from opconform.commands.coverage import library_facts
from opconform.oracle import official
from opconform.reports import coverage
from opconform.specs import catalog


def test_operator_list_is_the_188_then_the_added_then_what_onnx_defines():
    ops = coverage.operators()
    assert len(ops) == len(set(ops))
    listed = catalog.read_names(catalog.LIST_FILE)
    assert len(listed) == 188 and ops[:188] == listed
    header = coverage.OPS_FILE.read_text().splitlines()[0]
    assert header.startswith("#") and "188" in header
    added = catalog.read_names(catalog.ADDED_FILE)
    assert len(added) == 15 and ops[188:203] == added and {"Swish", "CumProd"} <= set(added)
    # every standard operator the installed onnx defines is counted, whichever list names it
    assert set(catalog.defined_by_onnx()) <= set(ops)


def test_specs_missing_lists_exactly_the_operators_without_a_spec_file(tmp_path, capsys):
    (tmp_path / "onnx").mkdir()
    for op in ("Abs", "Swish"):
        (tmp_path / "onnx" / f"{op}.yaml").write_text("")
    assert cli.main(["specs", "--missing", "--spec-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    listed = [line.split("\t")[0] for line in out.splitlines()]
    assert "Abs" not in listed and "Swish" not in listed
    assert listed == [op for op in coverage.operators() if op not in ("Abs", "Swish")]
    assert dict(line.split("\t") for line in out.splitlines())["CumProd"] == "added to ONNX since the list"
    assert err.strip() == f"{len(listed)} of {len(coverage.operators())} standard ONNX operators have no spec"


def test_specs_missing_refuses_a_folder_that_is_no_spec_library(tmp_path, capsys):
    assert cli.main(["specs", "--missing", "--spec-dir", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--spec-dir" in err[0] and "onnx/ folder" in err[0]


def test_row_of_an_operator_with_spec_and_oracle():
    r = coverage.rows(only=["Abs"], facts=library_facts(["Abs"]))[0]
    assert r.versions == [v.since for v in specs.load_spec("onnx", "Abs").versions]
    assert r.has_oracle
    # independent count: the official single-node cases of Abs, each run through the oracle
    results = official.check_operator("Abs")
    assert (r.official_passed, r.official_total) == (sum(x.passed for x in results), len(results))
    assert r.official_total >= 1
    assert r.complete == (r.has_strategy is True and r.official_passed == r.official_total)
    assert r.backends == []


def test_row_of_an_operator_without_spec():
    # an operator of any ONNX dialect ("onnx_training::Gradient" has its own folder)
    lacking = [op for op in coverage.operators()
               if not catalog.has_spec(catalog.split_key(op)[1], dialect=catalog.split_key(op)[0])]
    if not lacking:
        pytest.skip("every standard operator has a spec file")
    op = lacking[0]
    dialect, name = catalog.split_key(op)
    r = coverage.row(op, facts=library_facts([op])[op])
    assert (r.versions, r.has_oracle, r.has_strategy, r.complete) == ([], False, None, False)
    assert r.official_passed == 0 and r.official_total == len(official.cases_for(name, dialect))
    assert r.missing == ["no spec"]


def test_unknown_generator_check_is_not_complete():
    r = coverage.row("Abs", facts=coverage.OperatorFacts(True, None, 3, 3))
    assert r.has_strategy is None and not r.complete and "strategy unknown" in r.missing


def test_failing_strategy_check_is_reported():
    r = coverage.row("Abs", facts=coverage.OperatorFacts(True, False, 3, 3))
    assert r.has_strategy is False and not r.complete and "no strategy" in r.missing


def test_rows_render_the_facts_given_and_run_neither_oracle_nor_generator(monkeypatch):
    """The table shows the facts the command gathered; a report computes none of them."""
    import opconform.generator

    def refuse(*a, **k):
        raise AssertionError("reports.coverage ran the oracle or the generator")

    for where, name in [(official, "check_operator"), (official, "cases_for"), (oracle, "has_oracle"),
                        (oracle, "evaluate"), (opconform.generator, "has_strategy")]:
        monkeypatch.setattr(where, name, refuse)
    facts = {"Abs": coverage.OperatorFacts(True, True, 2, 3)}
    abs_row, add_row = coverage.rows(only=["Abs", "Add"], facts=facts)
    assert (abs_row.has_oracle, abs_row.has_strategy, abs_row.official_passed, abs_row.official_total) == (True, True, 2, 3)
    assert not abs_row.complete and abs_row.missing == ["1 official case(s) fail"]
    assert add_row.versions and (add_row.has_oracle, add_row.has_strategy) == (None, None) and not add_row.complete
    assert add_row.missing == ["oracle, strategy and official cases unknown"]


def test_only_names_standard_operators():
    with pytest.raises(ValueError, match="NoSuchOp"):
        coverage.rows(only=["NoSuchOp"])


def test_command_json_and_total_line(capsys):
    assert cli.main(["coverage", "--only", "Abs", "Add", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["operator"] for r in doc["rows"]] == ["Abs", "Add"]
    assert doc["total"] == 2 and doc["complete"] == sum(r["complete"] for r in doc["rows"])
    assert set(doc["rows"][0]) >= {"operator", "versions", "has_oracle", "has_strategy", "official_passed",
                                    "official_total", "backends", "complete"}
    assert cli.main(["coverage", "--only", "Abs"]) == 0
    out = capsys.readouterr().out
    assert "Abs" in out and out.strip().splitlines()[-1] in ("1 of 1 operators complete", "0 of 1 operators complete")


def test_command_bad_results_dir_is_one_line(tmp_path, capsys):
    assert cli.main(["coverage", "--only", "Abs", "--results", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0] and "results" in err[0]


@pytest.mark.backend
def test_backends_column_from_a_real_run(tmp_path):
    pytest.importorskip("onnxruntime")
    out = tmp_path / "run"
    assert cli.main(["run", "--backend", "onnxruntime", "--spec", "onnx::Abs-*", "--jobs", "1", "--out", str(out)]) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    assert lines and all(json.loads(x)["backend"] == "onnxruntime" for x in lines)
    abs_row, add_row = coverage.rows([out], only=["Abs", "Add"], facts=library_facts(["Abs", "Add"]))
    assert abs_row.backends == ["onnxruntime"]
    assert add_row.backends == []


@pytest.mark.slow
def test_full_table():
    table = coverage.rows(facts=library_facts(coverage.operators()))
    assert [r.operator for r in table] == coverage.operators()
    for r in table:
        if r.complete:
            assert r.versions and r.has_oracle and r.has_strategy
            assert r.official_passed == r.official_total
            assert all(oracle.has_oracle(v) for v in specs.load_spec(*catalog.split_key(r.operator)).versions)
    print(f"{coverage.complete_count(table)} of {len(table)} operators complete")
