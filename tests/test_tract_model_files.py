"""tract reads models from files: a worker leaves none behind, and one left by a worker that died
while tract loaded its model is removed by the next tract backend to start."""
import os
import subprocess
import sys
import tempfile

import pytest
from onnx import TensorProto, helper

pytest.importorskip("tract")
from opconform import backends  # noqa: E402


def _model_files() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("opconform-tract-")}


@pytest.mark.backend
def test_tract_leaves_no_model_file_and_removes_those_of_dead_workers():
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = os.path.join(tempfile.gettempdir(), f"opconform-tract-{int(dead.stdout)}.onnx")
    live = os.path.join(tempfile.gettempdir(), f"opconform-tract-{os.getppid()}.onnx")  # a process that runs on
    for path in (left, live):
        open(path, "wb").close()
    try:
        tract = backends.get("tract")
        assert not os.path.exists(left)
        assert os.path.exists(live)
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        model = helper.make_model(helper.make_graph([helper.make_node("Abs", ["x"], ["y"])], "abs", [x], [y]),
                                  opset_imports=[helper.make_opsetid("", 13)])
        before = _model_files()
        tract.load(model)
        assert _model_files() == before
    finally:
        for path in (left, live):
            if os.path.exists(path):
                os.unlink(path)
