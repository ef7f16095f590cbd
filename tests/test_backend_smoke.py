"""Every real backend installed here runs the smoke profile to the end: each case gets a verdict,
crashes included, and the backend really ran (some cases pass)."""
import json
import sys
import textwrap
from collections import Counter

import pytest

from helpers_runner import planned_cases, rows, run_cli
from opconform import backends
from opconform.backends import BackendMissing

ONNX_SPECS = "onnx::GatherND-13,onnx::Unique-11,onnx::Abs-13"
SPECS = {"reference": ONNX_SPECS, "onnxruntime": ONNX_SPECS, "openvino": ONNX_SPECS, "tract": ONNX_SPECS,
         "iree": ONNX_SPECS, "tvm": ONNX_SPECS, "openvino-native": "openvino::GatherND-8,openvino::Unique-10"}
# the modules of an extra whose import names differ from the extra's name
IMPORTS = {"iree": ("iree.compiler", "iree.runtime")}


@pytest.mark.backend
@pytest.mark.parametrize("name", list(SPECS))
def test_smoke_profile_runs_to_the_end(tmp_path, name):
    extra = backends.BUILTIN[name][1]  # the backend's package (its pip extra has the same name)
    for module in IMPORTS.get(extra, (extra,) if extra else ()):
        pytest.importorskip(module)  # only that package missing skips: any other BackendMissing fails
    backends.get(name)
    out = tmp_path / name
    proc = run_cli("--backend", name, "--spec", SPECS[name], "--profile", "smoke", "--jobs", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = json.loads((out / "run.json").read_text())
    planned = {c.id for c in planned_cases(SPECS[name])}
    got = rows(out)
    assert {r["case_id"] for r in got} == planned
    assert len(got) == len({r["case_id"] for r in got})
    counts = Counter(r["verdict"] for r in got)
    # opconform's own failures fail this test: a run on a real backend must have none
    assert not meta.get("harness_errors") and not counts["harness-error"], \
        [r["backend_message"] for r in got if r["verdict"] == "harness-error"][:5]
    assert counts["pass"] > 0, counts
    assert all(r["backend"] == name for r in got)
    assert meta["backend_version"]


def test_missing_backend_names_the_extra(monkeypatch):
    monkeypatch.setitem(backends.BUILTIN, "tract", ("helpers_runner:NeedsMissingLibrary", "tract"))
    with pytest.raises(BackendMissing) as e:
        backends.get("tract")
    assert str(e.value) == ("backend 'tract' is not installed (opconform_no_such_runtime missing); "
                            "install it with: pip install 'opconform[tract]'")


def test_third_party_backend_through_an_entry_point(tmp_path, monkeypatch):
    """A package that declares `[opconform.backends] mine = pkg.module:Class` is found by name."""
    dist = tmp_path / "opconform_mine-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: opconform-mine\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""
        [opconform.backends]
        mine = opconform.backends.testing.broken:BrokenBackend
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "mine" in backends.names()
    assert backends.get("mine").name == "broken"


def test_backend_declares_specs_and_opsets():
    from opconform import specs

    onnxruntime = pytest.importorskip("onnxruntime")
    ort = backends.get("onnxruntime")
    lo, hi = ort.opset_range()
    # the range is probed, not assumed: onnxruntime itself loads opset hi and refuses hi + 1

    from opconform.backends import opsets
    from opconform.backends.probe import tiny_model

    def loads(opset: int) -> bool:
        try:
            onnxruntime.InferenceSession(tiny_model(opset).SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - any refusal means "not this opset"
            return False
        return True

    assert lo <= hi <= opsets.LATEST and loads(hi)
    assert hi == opsets.LATEST or not loads(hi + 1)
    assert ort.accepts(specs.load("onnx::GatherND-13")) is None
    newest = max(specs.load_spec("onnx", "Unique").versions, key=lambda v: v.since)
    if newest.since > hi:
        assert "loads opsets" in ort.accepts(newest)
    assert "onnx, onnx_ml and onnx_training specs only, not openvino" in ort.accepts(specs.load("openvino::GatherND-8"))
    assert ort.opset_for(specs.load("onnx::GatherND-12")) == 12
