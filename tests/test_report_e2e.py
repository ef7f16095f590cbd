"""End to end from real runs: `opconform run --shard K/2` on onnxruntime, merge, report, baseline,
gate, and the report's replay command replayed."""
from __future__ import annotations

import html
import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from opconform.cli import main
from opconform.model import Verdict
from opconform.reports.resultset import ResultSet
from opconform.suites.merge import read_dir

pytestmark = [pytest.mark.backend, pytest.mark.slow]

SPEC = "onnx::GatherND-13"


def opconform(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opconform", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    pytest.importorskip("onnxruntime")  # the runs below are onnxruntime's
    base = tmp_path_factory.mktemp("e2e")
    dirs = []
    for k in (1, 2):
        out = base / f"shard{k}"
        p = opconform("run", "--backend", "onnxruntime", "--spec", SPEC, "--jobs", "1", "--seed", "3",
                      "--shard", f"{k}/2", "--out", out)
        assert p.returncode in (0, 1), p.stdout + p.stderr  # 1: some case failed; still a complete run
        dirs.append(out)
    return base, dirs


def test_merge_report_baseline_gate_from_real_runs(shards):
    base, dirs = shards
    merged = base / "merged"
    assert main(["merge", *map(str, dirs), "--out", str(merged)]) == 0
    parts = [read_dir(d) for d in dirs]
    assert {r.case_id for p in parts for r in p.results} == {r.case_id for r in read_dir(merged).results}
    assert not ({r.case_id for r in parts[0].results} & {r.case_id for r in parts[1].results})  # disjoint shares

    report = base / "report"
    assert main(["report", str(merged), "--out", str(report), "--no-coverage"]) == 0
    rs = ResultSet.load([merged])
    counts = Counter(r.verdict for r in rs.results)
    page = (report / "index.html").read_text()
    ran = len(rs.results) - counts[Verdict.UNSUPPORTED]
    assert f'data-backend="onnxruntime" data-pass="{counts[Verdict.PASS]}" data-ran="{ran}" data-total="{len(rs.results)}"' in page
    assert len(ET.parse(report / "junit.xml").getroot().findall(".//testcase")) == len(rs.results)
    summary = json.loads((report / "summary.json").read_text())
    assert summary["backends"]["onnxruntime"]["cases"] == len(rs.results)
    assert summary["backends"]["onnxruntime"]["version"]

    baseline = base / "baseline.yaml"
    assert main(["baseline", str(merged), "--out", str(baseline)]) == 0
    assert main(["gate", "--strict", "--baseline", str(baseline), str(merged)]) == 0
    assert main(["gate", "--baseline", str(baseline), *map(str, dirs)]) == 0  # unmerged shards work too


def test_replay_command_from_the_report_replays_the_case(shards, tmp_path):
    _, dirs = shards
    assert main(["report", str(dirs[0]), "--out", str(tmp_path / "r"), "--no-coverage"]) == 0
    from opconform.reports.failure import replay_command

    results = read_dir(dirs[0]).results
    r = next((x for x in results if x.verdict.is_failure), results[0])
    cmd = replay_command(r, dirs[0], "onnxruntime")
    pages = "".join(html.unescape(p.read_text()) for p in (tmp_path / "r" / "details").glob("*.html"))
    assert cmd in pages or not r.verdict.is_failure
    argv = shlex.split(cmd)
    assert argv[0] == "opconform" and argv[argv.index("--replay") + 1] == str(dirs[0].resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = opconform(*argv[1:], cwd=elsewhere)  # runnable as printed from any directory: the path is absolute
    assert r.verdict.value in p.stdout + p.stderr, p.stdout + p.stderr
