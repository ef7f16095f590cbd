"""`opconform generate` over EVERY spec version: all generated, byte-identical for one seed, and
every expected output file equal to the oracle recomputed from the files.

Two invocations with the same seed: one in this process, one in a fresh interpreter with another
hash seed, so process state (imported modules, Hypothesis's constant pool, set and dict order)
cannot make them agree by accident. They write to different directories, so an absolute path in
any file would show up as a difference too.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from opconform import oracle, specs
from opconform.cli import main as cli
from opconform.generator import manifest
from tests.helpers_generated_files import check_against_oracle, check_case, tree_differences

pytestmark = pytest.mark.slow

COUNT, SEED = 3, 11  # 3 cases of each of ~275 spec versions: about a minute per invocation


def _command(out: Path) -> list[str]:
    return ["generate", "--spec", "*", "--count", str(COUNT), "--seed", str(SEED), "--out", str(out)]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, Path, dict]:
    a, b = tmp_path_factory.mktemp("every_a"), tmp_path_factory.mktemp("every_b")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    child = subprocess.Popen([sys.executable, "-m", "opconform", *_command(b)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        status = cli(_command(a))
    finally:
        _, err = child.communicate(timeout=900)
    assert child.returncode == 0, err[-3000:]
    assert status == 0
    return a, b, manifest.read(a)


def test_every_spec_version_with_an_oracle_is_generated(generated):
    _, _, doc = generated
    wanted = {v.id for v in specs.select("*") if oracle.has_oracle(v)}
    assert doc["not_generated"] == {}
    assert {e["spec_id"] for e in doc["cases"]} == wanted
    assert len(doc["cases"]) >= len(wanted) * 2


def test_two_invocations_with_one_seed_write_identical_bytes(generated):
    a, b, doc = generated
    assert tree_differences(a, b) == []
    assert sum(1 for p in a.rglob("*") if p.is_file()) > len(doc["cases"]) * 2


def test_every_expected_output_file_equals_the_oracle_on_the_inputs_read_back(generated):
    a, _, doc = generated
    seen: Counter = Counter()
    assert check_against_oracle(a, doc, seen) == []
    # the check must have met the element types this issue is about, not passed by checking nothing
    for kind in ("string", "bool", "complex64", "complex128", "0-d", "float32", "bfloat16", "int64"):
        assert seen[kind] > 0, (kind, seen)


def test_the_check_notices_a_changed_string(generated, tmp_path):
    """The comparison is not vacuous: one altered string in one expected output file is reported."""
    a, _, doc = generated
    entry = next(e for e in doc["cases"] if e["spec_id"].startswith("onnx::") and any(
        f["element_type"] == "string" and np.prod(f["shape"]) > 0 for f in e["files"]["outputs"]))
    shutil.copytree(a / entry["dir"], tmp_path / entry["dir"])
    assert check_case(tmp_path, entry) == []
    f = next(f for f in entry["files"]["outputs"] if f["element_type"] == "string")
    path = tmp_path / entry["dir"] / "test_data_set_0" / f["file"]
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    x = numpy_helper.to_array(t).copy()
    x.reshape(-1)[0] = "changed by the test"
    path.write_bytes(numpy_helper.from_array(x, t.name).SerializeToString())
    assert any(f"output {f['name']!r}" in p for p in check_case(tmp_path, entry))
