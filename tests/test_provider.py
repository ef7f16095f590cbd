"""onnxruntime on a chosen execution provider: `--backend onnxruntime --provider NAME` runs the
backend onnxruntime[NAME], which is its name in results, run.json and the report; a provider this
onnxruntime lacks is a one-line refusal naming it and the ones available; a backend that takes no
option says so. CUDAExecutionProvider runs where onnxruntime-gpu and a GPU are present."""
import json
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from helpers_runner import planned_cases, rows, run_cli
from opconform import backends

ort = pytest.importorskip("onnxruntime")

SPECS = "onnx::Abs-13,onnx::Unique-11"


@lru_cache(maxsize=None)
def _cuda_reason() -> str | None:
    """Why the CUDA provider cannot run here, or None where it can."""
    try:
        backends.get("onnxruntime[CUDAExecutionProvider]")
    except backends.BackendMissing as e:
        return str(e)
    return None


@pytest.mark.backend
def test_a_provider_is_part_of_the_backends_identity(tmp_path):
    out = tmp_path / "cpu"
    proc = run_cli("--backend", "onnxruntime", "--provider", "CPUExecutionProvider", "--spec", SPECS,
                   "--jobs", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = rows(out)
    assert sorted(r["case_id"] for r in got) == sorted(c.id for c in planned_cases(SPECS))
    assert {r["backend"] for r in got} == {"onnxruntime[CPUExecutionProvider]"}
    verdicts = Counter(r["verdict"] for r in got)
    assert verdicts["pass"] and not verdicts["harness-error"], verdicts
    assert json.loads((out / "run.json").read_text())["backend"] == "onnxruntime[CPUExecutionProvider]"
    summary = json.loads((out / "report" / "summary.json").read_text())
    assert list(summary["backends"]) == ["onnxruntime[CPUExecutionProvider]"]
    # onnxruntime compiles one session per signature with dynamic dimensions, and the report says so
    assert summary["backends"]["onnxruntime[CPUExecutionProvider]"]["compiled"]["dynamic_cases"] > 0
    # the same provider named as a backend: the worker pool and --resume re-create it from the name
    again = run_cli("--backend", "onnxruntime[CPUExecutionProvider]", "--out", str(out), "--resume", "--no-report")
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(rows(out)) == len(got)


@pytest.mark.backend
def test_the_cpu_provider_answers_as_plain_onnxruntime():
    """Named or not, the CPU provider is the same implementation: the same outcomes case for case."""
    plain, named = backends.get("onnxruntime"), backends.get("onnxruntime[CPUExecutionProvider]")
    from opconform import specs

    for case in planned_cases("onnx::Unique-11"):
        spec = specs.load(case.spec_id)
        a, b = plain.execute(spec, case), named.execute(spec, case)
        assert (a.status, a.message) == (b.status, b.message)
        assert [x is None for x in a.outputs] == [x is None for x in b.outputs]
        for x, y in zip(a.outputs, b.outputs):
            if x is not None:
                np.testing.assert_array_equal(x, y)  # NaN where NaN


def test_an_unavailable_provider_is_one_line_naming_it_and_the_available_ones(tmp_path):
    proc = run_cli("--backend", "onnxruntime", "--provider", "NoSuchExecutionProvider", "--spec", SPECS,
                   "--out", str(tmp_path / "x"))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, proc.stderr
    assert "NoSuchExecutionProvider" in line
    for name in ort.get_available_providers():
        assert name in line


def test_a_backend_without_options_refuses_one(tmp_path):
    with pytest.raises(backends.BackendMissing, match=r"'reference' takes no option"):
        backends.get("reference[CUDAExecutionProvider]")
    proc = run_cli("--provider", "CPUExecutionProvider", "--spec", SPECS, "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "--provider goes with --backend onnxruntime" in proc.stderr


@pytest.mark.backend
@pytest.mark.skipif(_cuda_reason() is not None, reason=f"no CUDA provider here: {_cuda_reason()}")
def test_the_cuda_provider_runs_specs_on_the_gpu(tmp_path):
    out = tmp_path / "cuda"
    proc = run_cli("--backend", "onnxruntime", "--provider", "CUDAExecutionProvider", "--spec", SPECS,
                   "--jobs", "1", "--out", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = rows(out)
    verdicts = Counter(r["verdict"] for r in got)
    assert {r["backend"] for r in got} == {"onnxruntime[CUDAExecutionProvider]"}
    assert verdicts["pass"] and not verdicts["harness-error"], verdicts


@pytest.mark.backend
def test_a_device_provider_keeps_few_sessions_and_a_node_it_does_not_take_is_unsupported():
    """Each session on a device provider holds device handles and memory: a worker keeps a few, not
    the CPU's 256. A node no provider took (CPU fallback off) is unsupported, in either wording."""
    from opconform.backends import onnxruntime as ort_backend

    other = [p for p in ort.get_available_providers() if p != ort_backend.CPU]
    if not other:
        pytest.skip("this onnxruntime has no provider but the CPU's")
    device = backends.get(f"onnxruntime[{other[0]}]")
    assert device.cache_size == ort_backend.DEVICE_SESSIONS_KEPT < backends.get("onnxruntime").cache_size
    for message in ("[ONNXRuntimeError] : 1 : FAIL : Exception during initialization: .../transformer_memcpy.cc:253 "
                    "... Provider type for Acos node with name '' is not set.",
                    "[ONNXRuntimeError] : 1 : FAIL : This session contains graph nodes that are assigned to the "
                    "default CPU EP, but fallback to CPU EP has been explicitly disabled by the user."):
        assert device.classify(RuntimeError(message), "load") == "unsupported"
