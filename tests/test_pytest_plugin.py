"""`pytest --pyargs opconform.suites --backend NAME`: items per spec version x backend, Hypothesis
shrinking on failure, the baseline as expected failures, pytest-xdist. Each test runs pytest in a
subprocess from an empty directory, as a user would."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.backend, pytest.mark.slow]  # onnxruntime in-process; pytest subprocesses (~80 s)

SPEC = "onnx::Abs-13"  # onnxruntime conforms to it (checked with these seeds)
WRONG = "helpers_reports_backend:OffByOne"
# a test that runs onnxruntime, or OffByOne (built on it), skips only where onnxruntime is not installed
needs_onnxruntime = pytest.mark.usefixtures("onnxruntime_installed")


@pytest.fixture
def onnxruntime_installed():
    pytest.importorskip("onnxruntime")


def suites(tmp_path, *args, timeout=300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "opconform.suites", "-p", "no:cacheprovider", "-q",
           "--hypothesis-seed=0", "--examples", "15", *args]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)


def test_one_item_per_spec_version_and_backend(tmp_path):
    p = suites(tmp_path, "--collect-only", "--backend", "onnxruntime,reference", "--spec", "onnx::GatherND-*,onnx::Abs-13")
    assert p.returncode == 0, p.stdout + p.stderr
    items = {l.split("[", 1)[1].rstrip("]") for l in p.stdout.splitlines() if "::test_conformance[" in l}
    pairs = {tuple(i.split(":", 1)) for i in items}
    spec_ids = {s for _, s in pairs}
    assert pairs == {(b, s) for b in ("onnxruntime", "reference") for s in spec_ids}  # every spec x every backend
    assert SPEC in spec_ids and "onnx::GatherND-13" in spec_ids
    assert all(s.startswith("onnx::GatherND-") or s == SPEC for s in spec_ids)


def test_without_backend_the_item_skips_with_a_reason(tmp_path):
    p = suites(tmp_path, "-rs")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "pass --backend NAME" in p.stdout


def test_a_spec_glob_that_matches_nothing_is_a_usage_error(tmp_path):
    p = suites(tmp_path, "--collect-only", "--backend", "onnxruntime", "--spec", "onnx::Abs-13,onnx::Typo*")
    assert p.returncode == 4, p.stdout + p.stderr  # pytest's usage error
    assert "'onnx::Typo*' matches no spec version" in p.stdout + p.stderr


@needs_onnxruntime
def test_conforming_backend_passes(tmp_path):
    p = suites(tmp_path, "--backend", "onnxruntime", "--spec", SPEC)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout


@needs_onnxruntime
def test_wrong_backend_fails_with_a_shrunk_case(tmp_path):
    p = suites(tmp_path, "--backend", WRONG, "--spec", SPEC)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "mismatch" in p.stdout and "Failing test case" in p.stdout
    assert f"1 failed" in p.stdout


@needs_onnxruntime
def test_baseline_turns_known_failing_specs_into_xfail(tmp_path):
    (tmp_path / "baseline.yaml").write_text(
        "format: 1\nbackends:\n  off-by-one:\n    specs:\n"
        f"      {SPEC}:\n        status: fail\n        failing:\n"
        "        - {case: '0000000000000000', verdict: mismatch, reason: adds one on purpose}\n"
    )
    p = suites(tmp_path, "--backend", WRONG, "--spec", SPEC, "--baseline", "baseline.yaml", "-rx")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 xfailed" in p.stdout and "adds one on purpose" in p.stdout


def test_malformed_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "baseline.yaml").write_text("format: 1\nbackends: [\n")
    p = suites(tmp_path, "--backend", "onnxruntime", "--spec", SPEC, "--baseline", "baseline.yaml")
    assert p.returncode == 4 and "malformed YAML" in p.stderr


@pytest.mark.slow
@needs_onnxruntime
def test_works_with_xdist(tmp_path):
    p = suites(tmp_path, "-n", "2", "--backend", f"onnxruntime,{WRONG}", "--spec", SPEC)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "1 failed, 1 passed" in p.stdout


@needs_onnxruntime
def test_isolate_turns_a_segfault_into_a_crash_verdict_and_the_session_goes_on(tmp_path):
    p = suites(tmp_path, "--isolate", "--backend", "helpers_reports_crash:Segfaulting,onnxruntime", "--spec", SPEC)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "crash: worker killed by SIGSEGV" in p.stdout
    assert "1 failed, 1 passed" in p.stdout  # the onnxruntime item still ran, after the crashes


def test_isolated_backend_survives_a_segfault():
    from opconform import generator, oracle, specs
    from opconform.model import Verdict
    from opconform.suites.isolated import IsolatedBackend

    spec = specs.load(SPEC)
    cases = generator.generate(spec, 40, 0, expect=oracle.expectation)
    big = next(c for c in cases if c.inputs[0].size >= 1)
    small = next(c for c in cases if c.inputs[0].size == 0 and c.expected.kind == "outputs")  # it answers empty ones
    iso = IsolatedBackend("helpers_reports_crash:Segfaulting", timeout=60)
    try:
        crashed = iso.run(spec, big)
        assert crashed.verdict is Verdict.CRASH and "SIGSEGV" in crashed.detail
        after = iso.run(spec, small)  # a fresh worker answers the next case
        assert after.verdict is Verdict.PASS, after.detail
    finally:
        iso.close()
