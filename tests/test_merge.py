"""`opconform merge`: shards of one run into one results set; refuses shards of different runs."""
from __future__ import annotations

import json

from helpers_reports import every_verdict, run_json, write_dir
from opconform.cli import main
from opconform.reports.resultset import ResultSet


def _shards(tmp_path, n=3, **override):
    rs = every_verdict()
    return rs, [
        write_dir(tmp_path / f"s{k}", rs[k - 1::n], {**run_json("alpha"), "shard": f"{k}/{n}", **(override if k == n else {})})
        for k in range(1, n + 1)
    ]


def test_merge_joins_and_dedups(tmp_path):
    rs, dirs = _shards(tmp_path)
    # shard 1 ran one of shard 2's cases again (a retried job): it must appear once
    write_dir(dirs[0], rs[0::3] + [rs[1]], {**run_json("alpha"), "shard": "1/3"})
    assert main(["merge", *map(str, dirs), "--out", str(tmp_path / "m")]) == 0
    merged = ResultSet.load([tmp_path / "m"])
    assert sorted(r.case_id for r in merged.results) == sorted(r.case_id for r in rs)
    run = json.loads((tmp_path / "m" / "run.json").read_text())
    assert run["shard"] is None and run["shards"] == ["1/3", "2/3", "3/3"] and run["shards_missing"] == []
    assert run["seed"] == 0 and len(run["merged_from"]) == 3


def test_merge_notes_missing_shards(tmp_path, capsys):
    _, dirs = _shards(tmp_path)
    assert main(["merge", str(dirs[0]), str(dirs[2]), "--out", str(tmp_path / "m")]) == 0
    assert "shards missing: 2/3" in capsys.readouterr().out


def test_merge_refuses_different_runs(tmp_path, capsys):
    for key, value in (("seed", 5), ("backend", "beta"), ("profile", "deep")):
        _, dirs = _shards(tmp_path / key, **{key: value})
        assert main(["merge", *map(str, dirs), "--out", str(tmp_path / "m")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"different runs ({key}" in err
    assert not (tmp_path / "m").exists()


def test_merge_of_missing_dir_is_bad_input(tmp_path, capsys):
    assert main(["merge", str(tmp_path / "x"), "--out", str(tmp_path / "m")]) == 2
    assert "not a results directory" in capsys.readouterr().err


def test_report_accepts_merged_results(tmp_path):
    _, dirs = _shards(tmp_path)
    assert main(["merge", *map(str, dirs), "--out", str(tmp_path / "m")]) == 0
    assert main(["report", str(tmp_path / "m"), "--out", str(tmp_path / "r"), "--no-coverage"]) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    assert "1/3 2/3 3/3" in page


def test_merge_adds_up_the_runners_totals(tmp_path):
    rs = every_verdict()
    dirs = [
        write_dir(tmp_path / f"s{k}", rs[k - 1::2], {**run_json("alpha"), "shard": f"{k}/2", "cases": len(rs[k - 1::2]),
                                                     "verdicts": {"pass": k}, "harness_errors": [f"e{k}"]})
        for k in (1, 2)
    ]
    assert main(["merge", *map(str, dirs), "--out", str(tmp_path / "m")]) == 0
    run = json.loads((tmp_path / "m" / "run.json").read_text())
    assert run["cases"] == len(rs) and run["verdicts"] == {"pass": 3} and run["harness_errors"] == ["e1", "e2"]


def test_merge_keeps_every_shards_unsupported_factor_values_once(tmp_path):
    rs = every_verdict()
    u8 = {"factor": "type:T", "value": "uint8", "message": "not implemented"}
    u16 = {"factor": "type:T", "value": "uint16", "message": "not implemented"}
    found = {1: {"onnx::Unique-11": [u8]}, 2: {"onnx::Unique-11": [u8, u16], "onnx::Abs-13": [u8]}}
    dirs = [write_dir(tmp_path / f"s{k}", rs[k - 1::2], {**run_json("alpha"), "shard": f"{k}/2", "unsupported_factors": found[k]})
            for k in (1, 2)]
    assert main(["merge", *map(str, dirs), "--out", str(tmp_path / "m")]) == 0
    run = json.loads((tmp_path / "m" / "run.json").read_text())
    assert run["unsupported_factors"] == {"onnx::Unique-11": [u8, u16], "onnx::Abs-13": [u8]}


def test_ci_example_commands_parse(tmp_path):
    """Every opconform command of docs/ci-github-actions.yml is accepted by the real argument parser."""
    import re
    import shlex
    from pathlib import Path

    import yaml

    from opconform.cli import build_parser

    doc = yaml.safe_load((Path(__file__).parents[1] / "docs" / "ci-github-actions.yml").read_text())
    runs = [s["run"] for job in doc["jobs"].values() for s in job["steps"] if "opconform" in s.get("run", "")]
    assert {shlex.split(r)[1] for r in runs} == {"run", "merge", "report", "gate"}
    for r in runs:
        text = re.sub(r"\$\{\{[^}]*\}\}", "1", r)  # matrix values
        text = re.sub(r"\$([A-Z_]+)", lambda m: str(doc["env"][m.group(1)]), text)  # the workflow's env
        args = build_parser().parse_args(shlex.split(text)[1:])
        assert args.command in ("run", "merge", "report", "gate")
