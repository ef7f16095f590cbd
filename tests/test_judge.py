"""`opconform judge`: a backend outside opconform judged from the files it wrote.

The backend is examples/onnxruntime_driver.py (onnxruntime, no opconform import) run as its own
process on what `opconform generate` wrote; `opconform run --backend onnxruntime --cases-from` the
same directory is what its verdicts must equal, case for case. Then answers are tampered with: a
changed value, a deleted file, a corrupt file, each named in the verdict it gets.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from opconform.cli import main as cli
from opconform.suites.judge import judge_dir
from opconform.suites.runner import RunConfig, run

pytestmark = pytest.mark.backend
pytest.importorskip("onnxruntime")

DRIVER = Path(__file__).resolve().parents[1] / "examples" / "onnxruntime_driver.py"
DONE_WHEN = "onnx::Unique*,onnx::GatherND*"  # the cases: every version of both operators
SMALL = "onnx::GatherND-13"


def opconform(*args: str | Path) -> subprocess.CompletedProcess:
    """The command in a process of its own (generate: this one has the tests' Hypothesis profile loaded)."""
    return subprocess.run([sys.executable, "-m", "opconform", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "80"})


def command(capsys, *args: str | Path) -> subprocess.CompletedProcess:
    """The command run here (cli.main), for those that draw no cases: seconds of start-up saved."""
    capsys.readouterr()
    code = cli([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def one_line(proc: subprocess.CompletedProcess, *names: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def results(d: Path) -> dict[str, dict]:
    return {r["case_id"]: r for r in map(json.loads, (d / "results.jsonl").read_text().splitlines())}


def verdicts(d: Path) -> dict[str, tuple]:
    """case id -> (verdict, the options it matched, its failure group)."""
    return {k: (r["verdict"], r["matched_policies"], r["extra"].get("symptom")) for k, r in results(d).items()}


def generated_and_answered(root: Path, pattern: str, *count: str) -> tuple[Path, Path]:
    cases, answers = root / "cases", root / "answers"
    ok(opconform("generate", "--spec", pattern, *count, "--out", cases))
    driver = subprocess.run([sys.executable, str(DRIVER), str(cases), str(answers)], capture_output=True, text=True, timeout=300)
    assert driver.returncode == 0, driver.stderr[-3000:]
    return cases, answers


def run_and_judge(root: Path, cases: Path, answers: Path, jobs: int) -> tuple[Path, Path]:
    """`opconform run --backend onnxruntime --cases-from CASES` and `opconform judge` of the answers."""
    ran, judged = root / "ran", root / "judged"
    run(RunConfig(backend="onnxruntime", out=ran, cases_from=str(cases), jobs=jobs))
    judge_dir(cases, answers, judged, backend="onnxruntime")
    return ran, judged


def assert_agree(cases: Path, ran: Path, judged: Path) -> None:
    manifest = json.loads((cases / "manifest.json").read_text())
    got, want = verdicts(judged), verdicts(ran)
    assert set(want) == {e["id"] for e in manifest["cases"]}  # run --cases-from ran the generated cases
    differ = {k: (want[k], got.get(k)) for k in want if got.get(k) != want[k]}
    assert not differ and set(got) == set(want), differ


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, Path, Path]:
    """A few GatherND-13 cases, valid and must-refuse: (cases, the driver's answers, judged results)."""
    root = tmp_path_factory.mktemp("judge-small")
    cases, answers = generated_and_answered(root, SMALL, "--count", "12")
    ran, judged = run_and_judge(root, cases, answers, jobs=1)  # one worker to start: a dozen cases
    assert_agree(cases, ran, judged)
    return cases, answers, judged


def test_judge_gives_the_verdicts_run_gives(small):
    cases, _, judged = small
    got = verdicts(judged)
    kinds = {e["expected"]["kind"] for e in json.loads((cases / "manifest.json").read_text())["cases"]}
    assert kinds == {"outputs", "error"}  # valid and must-refuse cases both judged
    assert "pass" in {v for v, _, _ in got.values()}
    assert json.loads((judged / "run.json").read_text())["backend"] == "onnxruntime"


@pytest.mark.slow
def test_judge_reproduces_run_case_for_case_on_unique_and_gathernd(tmp_path):
    cases, answers = generated_and_answered(tmp_path, DONE_WHEN)
    ran, judged = run_and_judge(tmp_path, cases, answers, jobs=2)
    assert_agree(cases, ran, judged)
    assert len({v for v, _, _ in verdicts(judged).values()}) > 2  # more than pass and one other: a real mix


def _passing_output(small, pick: int = 0) -> tuple[str, Path]:
    """(case id, its output_0.pb in a copy of the answers) of the pick-th valid case judged pass."""
    cases, answers, judged = small
    entries = {e["id"]: e for e in json.loads((cases / "manifest.json").read_text())["cases"]}
    passing = [k for k, r in results(judged).items() if r["verdict"] == "pass" and entries[k]["expected"]["kind"] == "outputs"]
    assert len(passing) > pick, "the small set needs valid cases onnxruntime passes"
    return passing[pick], Path(entries[passing[pick]]["dir"]) / "test_data_set_0" / "output_0.pb"


def _changed(x: np.ndarray) -> np.ndarray:
    """x with its first element changed to one no tolerance forgives."""
    y = x.copy().reshape(-1)
    with np.errstate(all="ignore"):
        if y.dtype == object:
            y[0] = str(y[0]) + "!"
        elif y.dtype.kind == "b":
            y[0] = not y[0]
        elif y.dtype.kind in "iu":
            y[0] ^= 1
        else:
            v = complex(y[0]).real
            y[0] = 0.5 if not np.isfinite(v) else v + 1 + abs(v)
    return y.reshape(x.shape)


def _judge_tampered(small, tmp_path: Path, tamper) -> tuple[str, dict]:
    cases, answers, judged = small
    copy = tmp_path / "answers"
    shutil.copytree(answers, copy)
    case_id = tamper(copy)
    out = tmp_path / "judged"
    summary = judge_dir(cases, copy, out, backend="onnxruntime")
    after, before = results(out), results(judged)
    assert set(after) == set(before) and sum(summary.counts.values()) == len(before)  # every case judged
    unchanged = {k for k in before if k != case_id and after[k]["verdict"] == before[k]["verdict"]}
    assert unchanged == set(before) - {case_id}
    return case_id, after[case_id]


def test_a_changed_output_value_is_a_mismatch(small, tmp_path):
    def flip(answers: Path) -> str:
        case_id, rel = _passing_output(small)
        t = onnx.load_tensor(answers / rel)
        x = numpy_helper.to_array(t)
        assert x.size, "the first passing case has an empty output; pick another"
        onnx.save_tensor(numpy_helper.from_array(_changed(x), t.name), answers / rel)
        return case_id

    _, r = _judge_tampered(small, tmp_path, flip)
    assert r["verdict"] == "mismatch" and "output" in r["detail"], r["detail"]
    assert r["got"]  # the wrong outputs are kept, as a run keeps them


def test_a_deleted_output_file_is_missing_output(small, tmp_path):
    def delete(answers: Path) -> str:
        case_id, rel = _passing_output(small, 1)
        (answers / rel).unlink()
        return case_id

    _, r = _judge_tampered(small, tmp_path, delete)
    assert r["verdict"] == "missing-output", r["detail"]


def test_a_corrupt_output_file_is_named_in_its_verdict_and_loses_nothing(small, tmp_path, capsys):
    cases, answers, _ = small
    hit: dict[str, Path] = {}

    def corrupt(answers: Path) -> str:
        case_id, rel = _passing_output(small, 2)
        (answers / rel).write_bytes(b"\xff\xff\xff not a tensor")
        hit["file"] = answers / rel
        return case_id

    _, r = _judge_tampered(small, tmp_path, corrupt)
    assert r["verdict"] == "missing-output" and "output_0.pb: not a TensorProto" in r["detail"], r["detail"]
    proc = ok(command(capsys, "judge", "--cases", cases, "--outputs", tmp_path / "answers", "--out", tmp_path / "cli", "--no-report"))
    said = [line for line in proc.stderr.splitlines() if "output_0.pb" in line]
    assert len(said) == 1 and str(hit["file"].parent.parent) in said[0] and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("name, verdict", [("error.txt", "error"), ("unsupported.txt", "unsupported"), ("crash.txt", "crash")])
def test_a_refusal_file_in_the_case_directory_is_read_as_the_backends_answer(small, tmp_path, name, verdict):
    def refuse(answers: Path) -> str:
        case_id, rel = _passing_output(small)
        shutil.rmtree(answers / rel.parent)  # no test_data_set_0: the answer is the case's
        (answers / rel.parent.parent / name).write_text("the backend's own words\n")
        return case_id

    _, r = _judge_tampered(small, tmp_path, refuse)
    assert r["verdict"] == verdict and r["backend_message"] == "the backend's own words", r


def test_a_case_without_any_answer_is_missing_output_even_when_it_must_be_refused(small, tmp_path):
    cases, _, judged = small
    must_refuse = next(e for e in json.loads((cases / "manifest.json").read_text())["cases"] if e["expected"]["kind"] == "error")

    def remove(answers: Path) -> str:
        shutil.rmtree(answers / must_refuse["dir"])
        return must_refuse["id"]

    _, r = _judge_tampered(small, tmp_path, remove)
    assert r["verdict"] == "missing-output" and "no answer" in r["detail"], r["detail"]


def test_the_judge_command_writes_what_report_baseline_and_gate_read(small, tmp_path, capsys):
    cases, answers, judged = small
    out, base = tmp_path / "judged", tmp_path / "baseline.yaml"
    said = ok(command(capsys, "judge", "--cases", cases, "--outputs", answers, "--out", out, "--backend", "onnxruntime"))
    assert verdicts(out) == verdicts(judged) and "verdicts: pass" in said.stdout
    assert (out / "report" / "summary.json").is_file() and (out / "report" / "index.html").is_file()
    ok(command(capsys, "baseline", out, "--out", base))
    assert "gate OK" in ok(command(capsys, "gate", out, "--baseline", base)).stdout
    ok(command(capsys, "merge", out, "--out", tmp_path / "merged"))
    assert verdicts(tmp_path / "merged") == verdicts(judged)


def test_the_readme_shows_the_driver_as_it_is():
    driver = DRIVER.read_text()
    core = driver[driver.index("def run_case("):driver.index("\n\n\ndef main(")]
    assert core in (DRIVER.parents[1] / "README.md").read_text()
    assert not any("opconform" in line for line in driver.splitlines() if line.startswith(("import ", "from ")))


# --- directories that are not what the flag wants: one line naming them, nothing written -------

def test_judge_names_a_directory_that_holds_no_generated_cases(small, tmp_path, capsys):
    cases, answers, judged = small
    one_line(command(capsys, "judge", "--cases", tmp_path / "nope", "--outputs", answers, "--out", tmp_path / "o1"),
             "--cases", "nope", "no such directory", "opconform generate")
    one_line(command(capsys, "judge", "--cases", judged, "--outputs", answers, "--out", tmp_path / "o2"),
             "--cases", str(judged), "a results directory", "opconform generate")
    one_line(command(capsys, "judge", "--cases", cases, "--outputs", tmp_path / "none", "--out", tmp_path / "o3"),
             "--outputs", "none", "no such directory")
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3"))
    before = (judged / "results.jsonl").read_bytes()
    one_line(command(capsys, "judge", "--cases", cases, "--outputs", answers, "--out", judged), str(judged), "already holds results")
    assert (judged / "results.jsonl").read_bytes() == before


def test_run_cases_from_names_a_directory_that_is_neither_results_nor_generated(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    one_line(command(capsys, "run", "--cases-from", tmp_path / "empty", "--out", tmp_path / "o"),
             "--cases-from", "empty", "results.jsonl", "manifest.json", "opconform generate")
    one_line(command(capsys, "run", "--cases-from", tmp_path / "nope", "--out", tmp_path / "o"),
             "--cases-from", "nope", "no such directory")
    assert not (tmp_path / "o").exists()
