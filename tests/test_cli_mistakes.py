"""Mistakes on the command line, through the real `opconform` entry point: exit 2 and exactly one
line on stderr naming the thing and what was expected, never a traceback. And what the end of
`opconform run` says: where the report is, the verdict counts, how to read them."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opconform import specs

SPEC = "onnx::Abs-13"


def opconform(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opconform", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "80"})


def one_line(proc: subprocess.CompletedProcess, *names: str) -> str:
    """The mistake's line, once it is the only line on stderr, the exit status is 2 and it names `names`."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A real run (reference backend, one spec, smoke), to resume, report on and read the end of."""
    out = tmp_path_factory.mktemp("cli") / "results"
    proc = opconform("run", "--profile", "smoke", "--spec", SPEC, "--jobs", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.fixture
def a_file(tmp_path) -> Path:
    f = tmp_path / "a-file"
    f.write_text("not a directory\n")
    return f


# --- a --spec glob that matches nothing -------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["run", "--profile", "smoke", "--out", "{tmp}/out"],
    ["generate", "--count", "1", "--out", "{tmp}/out"],
    ["validate"],
])
def test_a_glob_that_matches_nothing_is_named(tmp_path, command):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    proc = opconform(*args, "--spec", f"{SPEC},onnx::Typo*")
    line = one_line(proc, "'onnx::Typo*'", "matches no spec version", "--spec")
    assert SPEC not in line.split("expected")[0]  # the glob that did match is not blamed
    assert not (tmp_path / "out" / "results.jsonl").exists() and not (tmp_path / "out" / "manifest.json").exists()


def test_validate_checks_globs_against_its_spec_dir(tmp_path):
    (tmp_path / "onnx").mkdir()
    shutil.copy(specs.SPEC_ROOT / "onnx" / "Abs.yaml", tmp_path / "onnx")
    one_line(opconform("validate", "--spec-dir", str(tmp_path), "--spec", "onnx::Abs*,onnx::Neg*"), "'onnx::Neg*'")
    one_line(opconform("validate", "--spec-dir", str(tmp_path / "nope")), "--spec-dir", "no such directory")


# --- --resume that contradicts the recorded run -----------------------------------------------

@pytest.mark.parametrize("flag, value, recorded", [
    ("--backend", "onnxruntime", "--backend reference"),
    ("--seed", "1", "--seed 0"),
    ("--profile", "ci", "--profile smoke"),
    ("--spec", "onnx::Abs*", f"--spec {SPEC}"),
    ("--shard", "1/2", "no --shard"),
    ("--cases-from", "/tmp", "no --cases-from"),
])
def test_resume_refuses_a_flag_that_contradicts_the_record(finished_run, flag, value, recorded):
    out, _ = finished_run
    before = (out / "results.jsonl").read_bytes()
    line = one_line(opconform("run", "--resume", "--out", str(out), flag, value), flag, value, recorded, "contradicts")
    assert f"leave {flag} out" in line
    assert (out / "results.jsonl").read_bytes() == before


def test_resume_of_nothing_is_refused_not_a_fresh_run(tmp_path):
    one_line(opconform("run", "--resume", "--out", str(tmp_path / "never-ran")), "--resume", "never-ran", "no such directory")
    assert not (tmp_path / "never-ran").exists()
    (tmp_path / "empty").mkdir()
    one_line(opconform("run", "--resume", "--out", str(tmp_path / "empty")), "--resume", "no run.json")
    assert list((tmp_path / "empty").iterdir()) == []


def test_resume_with_the_recorded_flags_or_none_continues(finished_run):
    out, _ = finished_run
    rows = (out / "results.jsonl").read_bytes().count(b"\n")
    proc = opconform("run", "--resume", "--out", str(out), "--seed", "0", "--spec", f" {SPEC} ", "--no-report")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{rows} already done" in proc.stderr
    assert proc.stdout.startswith(f"results: {out.resolve()} ") and "\nreport: " not in proc.stdout
    assert (out / "results.jsonl").read_bytes().count(b"\n") == rows
    assert json.loads((out / "run.json").read_text())["seed"] == 0


# --- an --out that cannot be created or written -----------------------------------------------

def _writers(run_dir: Path, target: Path) -> dict[str, list[str]]:
    """Every command that writes, pointed at `target`."""
    return {
        "run": ["run", "--profile", "smoke", "--spec", SPEC, "--out", str(target)],
        "generate": ["generate", "--spec", SPEC, "--count", "1", "--out", str(target)],
        "report": ["report", str(run_dir), "--out", str(target)],
        "merge": ["merge", str(run_dir), "--out", str(target)],
        "baseline": ["baseline", str(run_dir), "--out", str(target / "baseline.yaml")],
        "specs import-onnx": ["specs", "import-onnx", "Abs", "--out-dir", str(target)],
    }


@pytest.mark.parametrize("command", list(_writers(Path(), Path())))
def test_an_out_under_a_file_is_one_line(finished_run, a_file, command):
    run_dir, _ = finished_run
    target = a_file / "sub"
    one_line(opconform(*_writers(run_dir, target)[command]), str(target), f"{a_file} is a file", "expected a directory")


@pytest.mark.parametrize("command", ["run", "report", "baseline"])
def test_an_out_that_cannot_be_made_is_one_line(finished_run, command):
    # /proc refuses new directories even to root
    run_dir, _ = finished_run
    target = Path("/proc/opconform-no-such/out")
    one_line(opconform(*_writers(run_dir, target)[command]), str(target), "cannot write there")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory anyway")
@pytest.mark.parametrize("command", ["run", "generate", "report", "merge", "baseline", "shrink"])
def test_a_read_only_out_is_one_line(finished_run, tmp_path, command):
    run_dir, _ = finished_run
    locked = tmp_path / "locked"
    locked.mkdir()
    if command == "shrink":  # shrink writes into the results directory it reads
        shutil.copytree(run_dir, locked / "results")
        target, args = locked / "results", ["shrink", str(locked / "results")]
    else:
        target = locked / "out"
        args = _writers(run_dir, target)[command]
    os.chmod(target if command == "shrink" else locked, 0o555)
    try:
        one_line(opconform(*args), "cannot write")
    finally:
        os.chmod(target if command == "shrink" else locked, 0o755)


def test_out_that_is_a_file_is_one_line(finished_run, a_file):
    run_dir, _ = finished_run
    one_line(opconform("report", str(run_dir), "--out", str(a_file)), f"{a_file}: {a_file} is a file")
    one_line(opconform("baseline", str(run_dir), "--out", str(run_dir)), f"{run_dir}: it is a directory", "expected a file")


# --- what the end of `opconform run` says -----------------------------------------------------

def test_run_ends_with_the_report_and_how_to_read_the_verdicts(finished_run):
    out, proc = finished_run
    lines = proc.stdout.splitlines()
    report = Path(lines[0].removeprefix("report: "))
    assert lines[0].startswith("report: ") and report.is_absolute() and report.is_file()
    assert report == (out / "report" / "index.html").resolve() and "<html" in report.read_text()[:500].lower()
    assert lines[1].startswith("verdicts: pass ")
    assert "disagree with the spec" in lines[2] or "agrees with the spec" in lines[2]
    assert "unsupported" in lines[2] and "not a failure" in lines[2]


def test_run_logs_full_spec_ids_to_a_pipe(finished_run):
    _, proc = finished_run
    assert f"{SPEC}: " in proc.stderr and "…" not in proc.stderr and "\x1b[" not in proc.stderr
    assert "cases run in" in proc.stderr and "total: " in proc.stderr


def test_a_report_that_fails_keeps_the_results_and_says_how_to_retry(finished_run, tmp_path, capsys):
    from opconform.commands.report import write_or_say

    out = tmp_path / "results"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "report")
    (out / "report").write_text("a file where the report directory goes\n")
    assert write_or_say(out) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("report: not written")
    assert f"opconform report {out} --out {out / 'report'}" in err[0]
    assert (out / "results.jsonl").stat().st_size > 0


# --- the progress listener: a terminal gets the bar and table, a log gets plain full lines ------

LONG = "onnx::SoftmaxCrossEntropyLoss-13"
NOT_RUN = "openvino::NonMaxSuppression-9"


def _feed(listener) -> None:
    """A run as the runner reports it: every verdict on a long spec id, a spec that failed to generate."""
    from opconform.model import Verdict
    from opconform.suites.plan import SpecCases
    from opconform.suites.runner import RunSummary

    summary = RunSummary()
    listener.planning(3)
    listener.spec_planned(SpecCases(LONG))
    listener.spec_planned(SpecCases("onnx::GatherND-13", cached=True))
    listener.spec_planned(SpecCases(NOT_RUN, error="generation took longer than 300 s"))
    listener.executing(35, 3)
    for spec_id, verdicts in ((LONG, [v.value for v in Verdict] * 3), ("onnx::GatherND-13", ["pass"] * 5)):
        for v in verdicts:
            summary.counts[spec_id][v] += 1
            listener.result(spec_id, v)
    summary.generation_errors[NOT_RUN] = "generation took longer than 300 s"
    listener.finished(summary)


def _assert_full(text: str) -> None:
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # a terminal's colours and cursor moves
    for name in (LONG, NOT_RUN, "accepted-invalid", "missing-output", "timeout"):
        assert name in text, name
    assert "…" not in text and "..." not in text


def test_a_log_gets_plain_lines_with_full_names():
    import io

    from opconform.suites.progress import LineProgress

    buf = io.StringIO()
    _feed(LineProgress(buf, every=0))
    text = buf.getvalue()
    _assert_full(text)
    assert "\x1b" not in text and "\r" not in text
    lines = text.splitlines()
    assert f"{LONG}: 0 cases in 0.0 s" in lines and "onnx::GatherND-13: 0 cases from the case cache" in lines
    assert "running 35 cases (3 already done)" in lines
    assert sum(line.startswith("running: ") for line in lines) <= 35  # a line per result at most, no redraws
    assert any(line.startswith(f"  {LONG}  pass 3, mismatch 3") for line in lines)
    assert any("1 other spec versions without a failure" in line for line in lines)


@pytest.mark.parametrize("width", [80, 200])
def test_a_terminal_gets_the_bar_and_full_names(width):
    import io

    from rich.console import Console

    from opconform.suites.progress import RichProgress

    buf = io.StringIO()
    _feed(RichProgress(Console(file=buf, force_terminal=True, width=width, height=40)))
    text = buf.getvalue()
    _assert_full(text)
    assert "━" in text  # the progress bar
    if width == 200:  # wide enough for the table; narrower, plain lines rather than `onnx::…`
        assert "verdicts per spec" in text and "┃" in text


def test_stderr_that_is_not_a_terminal_gets_lines(capsys):
    from opconform.suites import progress

    assert isinstance(progress.for_stderr(), progress.LineProgress)
