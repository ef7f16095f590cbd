"""A compile that killed its worker is remembered by the run's next workers (backends/compile_deaths.py):
TVM compiles in-process, and without the mark each case of a signature whose compile segfaults
would kill one more worker. The processes here are children of the test process, as a run's
workers are children of its fork server: they share the folder of marks."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opconform.backends import compile_cache, compile_deaths

# a process that dies inside the watched compile, as a compiler's segfault kills its worker
DIES = """
import os, signal
from opconform.backends import compile_cache, compile_deaths
print(compile_deaths._folder({backend!r}), flush=True)
with compile_deaths.watched({backend!r}, {model!r}, "Relu on FLOAT6E2M3"):
    os.kill(os.getpid(), signal.SIGSEGV)
"""
# ... and the next process, asked to compile the same bytes, then other bytes
ASKS = """
from opconform.backends import compile_cache, compile_deaths
for model in ({model!r}, b"another model"):
    try:
        with compile_deaths.watched({backend!r}, model, "x"):
            print("compiled", model, flush=True)
    except compile_deaths.CompileDied as e:
        print("died before:", e, flush=True)
"""


def _python(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def marks():
    made = []
    yield made
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_compile_that_killed_a_worker_is_answered_by_the_next_without_compiling(marks):
    died = _python(DIES.format(backend="testing", model=b"relu float6"))
    assert died.returncode < 0  # killed by its signal, as the compiler's crash kills a worker
    marks.append(Path(died.stdout.splitlines()[0]))
    asked = _python(ASKS.format(backend="testing", model=b"relu float6"))
    assert asked.returncode == 0, asked.stderr
    lines = asked.stdout.splitlines()
    assert lines[0].startswith("died before:") and "Relu on FLOAT6E2M3" in lines[0]
    assert lines[1] == "compiled b'another model'"  # only those bytes: another signature compiles


def test_a_compile_that_returns_or_raises_leaves_no_mark(marks):
    marks.append(compile_deaths._folder("testing-in-process"))
    with compile_deaths.watched("testing-in-process", b"model", "x"):
        pass
    with pytest.raises(ValueError):
        with compile_deaths.watched("testing-in-process", b"model", "x"):
            raise ValueError("the compiler refused it")
    with compile_deaths.watched("testing-in-process", b"model", "x"):  # no CompileDied: it never died
        pass


BACKEND_ASKS = """
import onnx
from onnx import TensorProto, helper
from opconform import backends
from opconform.backends import compile_cache, compile_deaths

def relu(t):
    x = helper.make_tensor_value_info("x", t, ["n"])
    y = helper.make_tensor_value_info("y", t, ["n"])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)

backend = backends.get({name!r})
{before}
for t in (TensorProto.FLOAT, TensorProto.DOUBLE):
    try:
        backend.load(relu(t))
        print("compiled", flush=True)
    except Exception as e:
        print(backend.classify(e, "build"), type(e).__name__, flush=True)
"""
DIE_ON_FLOAT = """
import os, signal
print(compile_deaths._folder(backend.name), flush=True)
with compile_deaths.watched(backend.name, relu(TensorProto.FLOAT).SerializeToString(), "Relu on FLOAT"):
    os.kill(os.getpid(), signal.SIGSEGV)
"""


@pytest.mark.backend
@pytest.mark.parametrize("name", ["tvm", "iree"])
def test_a_compiler_answers_crash_for_a_model_whose_compile_killed_a_worker(marks, tmp_path, name):
    """TVM compiles in-process; IREE imports in-process (onnx's shape inference first, which
    segfaults on GatherND-12 with a negative batch_dims) and compiles in a child. The next run
    remembers it too (backends/compile_cache.py), without the marks of this one."""
    pytest.importorskip({"tvm": "tvm", "iree": "iree.runtime"}[name])
    env = {compile_cache.ENV: str(tmp_path / "compiled")}  # the staged death is this test's alone
    died = _python(BACKEND_ASKS.format(name=name, before=DIE_ON_FLOAT), env)
    assert died.returncode < 0, died.stderr[-2000:]
    marks.append(Path(died.stdout.splitlines()[0]))
    asked = _python(BACKEND_ASKS.format(name=name, before=""), env)
    assert asked.returncode == 0, asked.stderr[-2000:]
    assert [ln for ln in asked.stdout.splitlines() if ln] == ["crash CompileDied", "compiled"]
    shutil.rmtree(marks[-1])  # a later run: this run's marks are gone
    again = _python(BACKEND_ASKS.format(name=name, before=""), env)
    assert [ln for ln in again.stdout.splitlines() if ln] == ["crash CompileDied", "compiled"]


@pytest.mark.backend
@pytest.mark.parametrize("name", ["tvm", "iree"])
def test_a_compiler_backend_is_not_probed_and_says_why(tmp_path, name):
    """A probe compiles each factor value's row once, and the run compiles its signature again:
    for a compiler that doubles the cost of the values it implements, and the run's own first case
    of a value it refuses fails as fast. The profile still probes every other backend."""
    from opconform import backends
    from opconform.suites import runner

    pytest.importorskip({"tvm": "tvm", "iree": "iree.runtime"}[name])
    backend = backends.get(name)
    config = runner.RunConfig(backend=name, out=tmp_path, profile="ci", jobs=1)
    assert config.probing and backend.skips_probe
    asked = []

    class Listener(runner.Listener):
        def probing(self, backend: str, total_specs: int) -> None:
            asked.append(backend)

    assert runner._probe(config, backend, ["onnx::Relu-14"], runner.RunSummary(), Listener()) is None
    assert asked == []
    assert not backends.get("reference").skips_probe


def test_a_compile_another_live_worker_runs_now_is_no_death(marks):
    """A signature's cases split over two batches: two workers compile the same model at once."""
    marks.append(compile_deaths._folder("testing-concurrent"))
    with compile_deaths.watched("testing-concurrent", b"model", "first worker"):
        with compile_deaths.watched("testing-concurrent", b"model", "second worker"):  # no CompileDied
            pass
        assert any(marks[0].iterdir())  # the first worker's mark stays while it compiles
    assert not any(marks[0].iterdir())
