"""Compiled models and compile failures kept between runs for the compiler backends
(backends/compile_cache.py): a later run loads what an earlier one compiled, says what it said of a
model it refused, and compiles afresh what it cannot read back."""
import json
import os
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest
from onnx import TensorProto, helper

from helpers_runner import rows, run_cli
from opconform import backends
from opconform.backends import compile_cache
from opconform.backends.base import short_message

PACKAGES = {"iree": ("iree.compiler", "iree.runtime"), "tvm": ("tvm",)}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "compiled"
    monkeypatch.setenv(compile_cache.ENV, str(folder))
    return folder


def _backend(name: str):
    for module in PACKAGES[name]:
        pytest.importorskip(module)
    return backends.get(name)


def _model(op: str, elem_type: int, opset: int = 14):
    x = helper.make_tensor_value_info("x", elem_type, ["n"])
    y = helper.make_tensor_value_info("y", elem_type, ["n"])
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _without_compiler(backend) -> None:
    """The backend's instance left unable to compile (its own attributes, nothing global): whatever
    it answers then comes from the cache."""
    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    if backend.name == "tvm":
        backend._from_onnx = refuse
    else:
        backend._compile_tool = "/nonexistent/iree-compile"
        backend._import = refuse


# a model each compiler refuses, and what it says of it (checked on the cold compile below)
REFUSED = {"tvm": (_model("Selu", TensorProto.FLOAT16, 6), "error"),
           "iree": (_model("Acos", TensorProto.DOUBLE, 7), "unsupported")}


@pytest.mark.backend
@pytest.mark.parametrize("name", list(PACKAGES))
def test_a_later_backend_loads_what_an_earlier_compiled_and_refuses_what_it_refused(cache_dir, name):
    x = np.array([-1.5, 0.0, 2.0], dtype=np.float32)
    cold = _backend(name)
    expected = cold.infer(cold.load(_model("Relu", TensorProto.FLOAT)), {"x": x}, ["y"])
    model, status = REFUSED[name]
    with pytest.raises(Exception) as first:
        cold.load(model)
    assert cold.classify(first.value, "build") == status
    assert cold.cache.hits == 0 and cold.cache.kept == 2

    warm = _backend(name)
    _without_compiler(warm)
    got = warm.infer(warm.load(_model("Relu", TensorProto.FLOAT)), {"x": x}, ["y"])
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[0], np.maximum(x, 0))
    with pytest.raises(Exception) as again:
        warm.load(model)
    assert isinstance(again.value, compile_cache.Remembered)
    # the same words, status and static-shape retry: a warm run's results read as the cold run's
    assert short_message(again.value) == short_message(first.value)
    assert warm.classify(again.value, "build") == status
    assert warm.needs_static(again.value) == cold.needs_static(first.value)
    assert warm.cache.hits == 2 and warm.cache.kept == 0


@pytest.mark.backend
def test_iree_models_compiled_together_are_each_loaded_from_their_shared_module(cache_dir):
    cold = _backend("iree")
    models = [_model("Abs", TensorProto.FLOAT, 13), _model("Neg", TensorProto.FLOAT, 13)]
    cold.load_many(models)
    assert len(list(cache_dir.rglob("*.vmfb"))) == 1  # one module holds both functions
    warm = _backend("iree")
    _without_compiler(warm)
    got = warm.load_many(models)
    x = np.array([-1.0, 2.0], dtype=np.float32)
    assert warm.infer(got[0], {"x": x}, ["y"])[0].tolist() == [1.0, 2.0]
    assert warm.infer(got[1], {"x": x}, ["y"])[0].tolist() == [1.0, -2.0]


COLD_RELU = """
from onnx import TensorProto, helper
from opconform import backends
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
backends.get({name!r}).load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8))
"""


@pytest.mark.backend
@pytest.mark.parametrize("name", list(PACKAGES))
def test_an_artifact_that_cannot_be_read_back_is_compiled_afresh(cache_dir, name):
    _backend(name)
    # compiled in another process, as by an earlier run: a library this process has loaded stays
    # loaded under its path whatever the file holds now
    cold = subprocess.run([sys.executable, "-c", COLD_RELU.format(name=name)], capture_output=True, text=True,
                          timeout=300)
    assert cold.returncode == 0, cold.stderr[-2000:]
    (artifact,) = [p for p in cache_dir.rglob("*") if p.suffix in (".so", ".vmfb")]
    artifact.write_bytes(b"not a compiled model")
    warm = _backend(name)
    x = np.array([-1.0, 3.0], dtype=np.float32)
    assert warm.infer(warm.load(_model("Relu", TensorProto.FLOAT)), {"x": x}, ["y"])[0].tolist() == [0.0, 3.0]
    assert warm.cache.kept == 1 and artifact.read_bytes() != b"not a compiled model"  # and kept again


def test_the_key_covers_the_compiler_its_settings_and_the_adapter(tmp_path, cache_dir):
    adapter = tmp_path / "adapter.py"
    adapter.write_text("one")
    folders = {compile_cache.CompileCache("x", ["1.0", "-O2"], [adapter]).folder,
               compile_cache.CompileCache("x", ["1.1", "-O2"], [adapter]).folder,
               compile_cache.CompileCache("x", ["1.0", "-O3"], [adapter]).folder}
    adapter.write_text("two")
    folders.add(compile_cache.CompileCache("x", ["1.0", "-O2"], [adapter]).folder)
    assert len(folders) == 4 and all(f.parent == cache_dir / "x" for f in folders)


def test_failures_the_machine_causes_are_not_kept(tmp_path, cache_dir):
    cache = compile_cache.CompileCache("x", ["1.0"], [])
    cache.keep_failure("a", MemoryError(), "error", False)
    cache.keep_failure("b", OSError("No space left on device"), "error", False)
    cache.keep_failure("c", RuntimeError("iree-compile died of SIGKILL"), "crash", False)
    cache.keep_failure("d", RuntimeError("iree-compile died of SIGSEGV"), "crash", False)
    assert [n for n in "abcd" if cache.lookup(n)] == ["d"]
    assert cache.lookup("d").failure.status == "crash"


def test_a_damaged_entry_is_a_miss(cache_dir):
    cache = compile_cache.CompileCache("x", ["1.0"], [])
    cache.folder.mkdir(parents=True)
    (cache.folder / "a.json").write_text("{not json")
    (cache.folder / "b.json").write_text(json.dumps({"artifact": "gone.so", "entry": "main"}))
    (cache.folder / "c.json").write_text(json.dumps({"something": "else"}))
    assert [cache.lookup(n) for n in "abc"] == [None, None, None] and cache.hits == 0


def test_it_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(compile_cache.ENV, "0")
    assert compile_cache.for_backend("x", ["1.0"], []) is None


@pytest.mark.backend
@pytest.mark.slow
@pytest.mark.parametrize("name", list(PACKAGES))
def test_a_second_run_compiles_nothing_and_gives_the_same_results(tmp_path, cache_dir, name):
    _backend(name)
    specs = "onnx::Abs-13,onnx::Add-14,onnx::Selu-6,onnx::GatherND-13"
    results = []
    for run in ("cold", "warm"):
        out = tmp_path / run
        proc = run_cli("--backend", name, "--spec", specs, "--profile", "smoke", "--jobs", "2", "--out", str(out),
                       "--no-report", env={compile_cache.ENV: str(cache_dir)})
        assert proc.returncode == 0, proc.stderr[-2000:]
        results.append({r["case_id"]: (r["verdict"], r["backend_message"]) for r in rows(out)})
        if run == "cold":
            entries = sorted(p.name for p in cache_dir.rglob("*") if p.name != compile_cache.USED_MARK)
    assert results[0] == results[1]
    kept = sorted(p.name for p in cache_dir.rglob("*") if p.name != compile_cache.USED_MARK)
    assert kept == entries  # nothing new compiled, nothing kept again (a run marks the folder used)
    counts = Counter(v for v, _ in results[1].values())
    assert counts["pass"] and len(counts) > 1, counts


@pytest.mark.backend
def test_a_tvm_worker_asks_to_be_replaced_after_its_share_of_libraries(cache_dir, monkeypatch):
    """TVM never unloads a library it loaded (5 memory mappings each; the kernel's default limit is
    65,530 a process): past LIBRARIES_PER_WORKER its worker asks to be replaced (Backend.spent)."""
    pytest.importorskip("tvm")
    from opconform.backends import tvm as tvm_adapter

    monkeypatch.setattr(tvm_adapter, "LIBRARIES_PER_WORKER", 2)
    backend = _backend("tvm")
    backend.load(_model("Relu", TensorProto.FLOAT))
    assert backend.libraries_loaded == 1 and not backend.spent()
    backend.load(_model("Abs", TensorProto.FLOAT, 13))
    assert backend.spent()


def _age(folder, days: float) -> None:
    then = time.time() - days * 86400
    for path in (*folder.iterdir(), folder):
        os.utime(path, (then, then))


def test_a_folder_no_run_has_opened_for_a_month_is_removed(cache_dir):
    """A compiler upgrade leaves the old version's folder behind: the next run that opens the
    backend's cache removes it once no run has opened it for UNUSED_DAYS; a folder in use, however
    old its entries, a recent one, and what the cache did not make stay."""
    old, in_use, recent = (compile_cache.CompileCache("x", [version], []) for version in ("1.0", "1.1", "1.2"))
    for cache in (old, in_use, recent):
        cache.keep_failure("a", RuntimeError("refused"), "error", False)
    stray = cache_dir / "x" / "notes"
    stray.mkdir()
    for folder in (old.folder, in_use.folder, stray):
        _age(folder, compile_cache.UNUSED_DAYS + 1)
    compile_cache.CompileCache("x", ["1.1"], [])  # a run of 1.1 opens its own folder and tidies the others
    assert not old.folder.exists()
    assert in_use.lookup("a") is not None and recent.lookup("a") is not None and stray.is_dir()
    _age(in_use.folder, compile_cache.UNUSED_DAYS - 1)  # a day short of a month: kept
    compile_cache.CompileCache("x", ["1.2"], [])
    assert in_use.lookup("a") is not None
