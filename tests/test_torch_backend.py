"""The torch backend (onnx2torch, eager PyTorch): real specs run to the end through `opconform run`;
a conversion onnx2torch does not have and a kernel torch lacks for a type are unsupported, other
exceptions while running are errors; extended float types cross torch's bridge as their bits;
torch[cuda] runs where a GPU is, and says why not elsewhere."""
from collections import Counter
from functools import lru_cache

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper

from helpers_runner import planned_cases, rows, run_cli
from opconform import backends

pytest.importorskip("torch", reason="torch is not installed (pip install 'opconform[torch]')")
pytest.importorskip("onnx2torch", reason="onnx2torch is not installed (pip install 'opconform[torch]')")

SPECS = "onnx::Abs-13,onnx::Add-14,onnx::GatherND-13,onnx::Unique-11"


@lru_cache(maxsize=None)
def _backend(name: str = "torch"):
    return backends.get(name)


@lru_cache(maxsize=None)
def _cuda_reason() -> str | None:
    try:
        _backend("torch[cuda]")
    except backends.BackendMissing as e:
        return str(e)
    return None


def _model(op: str, elem_type: int, inputs: int = 1, opset: int = 13):
    names = "xyz"[:inputs]
    graph = helper.make_graph([helper.make_node(op, list(names), ["out"])], op.lower(),
                              [helper.make_tensor_value_info(n, elem_type, None) for n in names],
                              [helper.make_tensor_value_info("out", elem_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


@pytest.mark.backend
@pytest.mark.slow
def test_torch_runs_specs_to_the_end(tmp_path):
    _backend()
    out = tmp_path / "torch"
    proc = run_cli("--backend", "torch", "--spec", SPECS, "--jobs", "2", "--out", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = rows(out)
    assert sorted(r["case_id"] for r in got) == sorted(c.id for c in planned_cases(SPECS))
    counts = Counter(r["verdict"] for r in got)
    assert not counts["harness-error"], [r["backend_message"] for r in got if r["verdict"] == "harness-error"][:5]
    assert {r["backend"] for r in got} == {"torch"}
    assert any(r["verdict"] == "pass" for r in got if r["spec_id"] == "onnx::Abs-13"), counts
    # onnx2torch has no Unique: its refusal is "unsupported", with the converter's one-line message
    unique = [r for r in got if r["spec_id"] == "onnx::Unique-11" and r["extra"]["expected_kind"] == "outputs"]
    assert unique and all(r["verdict"] == "unsupported" for r in unique)
    assert all(r["backend_message"].startswith("NotImplementedError: Converter is not implemented") for r in unique)


@pytest.mark.backend
def test_a_missing_converter_is_unsupported_and_a_failing_run_an_error():
    torch = _backend()
    # onnx2torch converts no Unique at all
    with pytest.raises(NotImplementedError) as e:
        torch.load(helper.make_model(helper.make_graph(
            [helper.make_node("Unique", ["x"], ["y"])], "unique",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
            opset_imports=[helper.make_opsetid("", 11)], ir_version=8))
    assert torch.classify(e.value, "build") == "unsupported"
    # shapes that do not broadcast: torch raises while running, and that is an error, not a refusal
    add = torch.load(_model("Add", TensorProto.FLOAT, inputs=2))
    with pytest.raises(RuntimeError) as e:
        torch.infer(add, {"x": np.ones(3, np.float32), "y": np.ones(4, np.float32)}, ["out"])
    assert torch.classify(e.value, "run") == "error"


@pytest.mark.backend
@pytest.mark.parametrize("dtype, elem_type", [(ml_dtypes.bfloat16, TensorProto.BFLOAT16),
                                              (np.float16, TensorProto.FLOAT16), (np.int64, TensorProto.INT64)])
def test_values_cross_torchs_bridge_unchanged(dtype, elem_type):
    """bfloat16 has no NumPy dtype of torch's: it crosses as its 16 bits, both ways."""
    torch = _backend()
    x = np.array([-2.5, -0.0, 1.0, 3.0], dtype=dtype)
    (y,) = torch.infer(torch.load(_model("Abs", elem_type)), {"x": x}, ["out"])
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y, np.abs(x))


def test_an_unknown_device_is_one_line():
    with pytest.raises(backends.BackendMissing, match=r"torch runs on cpu or cuda, not 'tpu'"):
        _backend("torch[tpu]")


@pytest.mark.backend
@pytest.mark.skipif(_cuda_reason() is not None, reason=f"no GPU for torch here: {_cuda_reason()}")
def test_torch_on_cuda_runs_specs(tmp_path):
    out = tmp_path / "cuda"
    proc = run_cli("--backend", "torch[cuda]", "--spec", "onnx::Abs-13,onnx::Add-14", "--jobs", "1", "--out", str(out),
                   "--no-report")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = rows(out)
    counts = Counter(r["verdict"] for r in got)
    assert {r["backend"] for r in got} == {"torch[cuda]"}
    assert counts["pass"] and not counts["harness-error"], counts


def test_a_lost_cuda_context_ends_the_worker_as_a_crash_of_that_case():
    """A device-side assert poisons the CUDA context: the worker ends at once with the status the
    pool reports as a lost device, instead of failing every later case with the same error."""
    import subprocess
    import sys

    from opconform.backends import base
    from opconform.backends import torch as torch_backend
    from opconform.suites.pool import describe_exit

    sticky = RuntimeError("CUDA error: device-side assert triggered\nSearch for `cudaErrorAssert'")
    assert torch_backend.loses_the_device(sticky)
    assert not torch_backend.loses_the_device(RuntimeError("index 7 is out of bounds for dimension 0 with size 3"))
    assert not torch_backend.loses_the_device(NotImplementedError("Converter is not implemented"))
    code = ("from opconform.backends import torch as t\n"
            "t._end_if_device_lost(RuntimeError('CUDA error: device-side assert triggered'))\n"
            "print('still alive')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == base.EXIT_DEVICE_LOST and "still alive" not in proc.stdout
    assert "device-side assert triggered: the worker ends, the case is a crash" in proc.stderr
    assert "lost its device context" in describe_exit(base.EXIT_DEVICE_LOST)
    assert describe_exit(3) == "worker exited with status 3"
