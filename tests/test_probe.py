"""Backend-aware budget (issue 11 item 3): a run asks the backend once per spec version and factor
value what it implements, leaves the values it does not out of the covering rows, keeps one
evidence case per such value, and reports each once."""
import json
import subprocess
import sys
from collections import Counter

import pytest

from helpers_runner import BROKEN, rows, run_cli, write_plan
from opconform import specs
from opconform.generator import probe_rows, sampling
from opconform.generator.factors import constraints, factors
from opconform.suites import case_cache, plan, probe

UNIQUE = "onnx::Unique-11"


# ------------------------------------------------------------------ no backend
def test_probe_rows_isolate_one_value():
    """Every probe row holds its pinned value and, where the constraints allow, differs from the
    baseline (every factor at its preferred value) in that factor only."""
    spec = specs.load(UNIQUE)
    fs, cs = factors(spec), constraints(spec)
    order = [probe_rows.preference(f) for f in fs]
    base = probe_rows.complete(fs, cs, {}, order)
    assert base is not None and fs[0].values[base[0]] == "float32"  # the type most backends implement
    for k, f in enumerate(fs):
        for i in range(len(f.values)):
            row = probe_rows.complete(fs, cs, {f.name: i}, order)
            assert row[k] == i
            assert [j for j in range(len(fs)) if row[j] != base[j]] in ([], [k])


def test_excluded_values_leave_the_rows():
    spec = specs.load(UNIQUE)
    t = next(f for f in factors(spec) if f.name == "type:T")
    gone = [t.values.index("uint8"), t.values.index("int16")]
    rows_ = sampling.spec_rows(spec, 2, 11, [("type:T", i) for i in gone])
    assert rows_ and not {r["type:T"] for r in rows_} & {"uint8", "int16"}
    assert len(rows_) < len(sampling.spec_rows(spec, 2, 11))  # the budget goes to supported rows
    with pytest.raises(ValueError, match="every value of factor type:T excluded"):
        sampling.spec_rows(spec, 2, 11, [("type:T", i) for i in range(len(t.values))])


def test_rows_without_an_optional_input_a_backend_refuses_to_be_given():
    """onnxruntime implements no QuantizeLinear-28 node, so its probe excludes y_zero_point given
    (and the zero point's types): the rows that would show a zero point type by giving the input
    are left out instead of failing the whole spec version (tuple.index(True))."""
    spec = specs.load("onnx::QuantizeLinear-28")
    fs = factors(spec)
    zp = next(f for f in fs if f.name == "input:y_zero_point")
    exclude = [("input:y_zero_point", zp.values.index(True))]
    rows_ = sampling.spec_rows(spec, 2, 11, exclude)
    assert rows_ and all(r["input:y_zero_point"] is False for r in rows_)


def test_rows_start_from_the_probe_rows_whether_or_not_the_run_probed():
    """A profile that probes plans the probe's round-one cases (none holding an excluded value)
    as its first rows: handed over by a run that probed, drawn again by one whose answers came from
    the cache, the same cases either way."""
    spec = specs.load(UNIQUE)
    t = next(f for f in factors(spec) if f.name == "type:T")
    exclude = (("type:T", t.values.index("uint8")),)
    drawn = probe.draw(UNIQUE)
    handed = plan.cases_for(UNIQUE, "ci", 11, exclude=exclude, probed=drawn.cases)
    redrawn = plan.cases_for(UNIQUE, "ci", 11, exclude=exclude)
    assert [c.id for c in handed.cases] == [c.id for c in redrawn.cases]
    ids = {c.id for c in handed.cases}
    k = drawn.names.index("type:T")
    kept = [c for row, c in drawn.cases.items() if c is not None and row[k] != exclude[0][1]]
    assert kept and all(c.id in ids for c in kept)
    assert not any(c.id in ids for row, c in drawn.cases.items() if c is not None and row[k] == exclude[0][1])
    assert handed.rows > len(kept)  # the probe rows alone leave pairs uncovered: rows of their own follow
    assert all(s["exercised"] == s["total"] for s in handed.coverage if s["t"] == 2)


def test_plan_cache_entry_names_the_exclusions():
    assert case_cache.variant(()) == ""  # no exclusions: the plan every backend shares
    a, b = case_cache.variant([("type:T", 1)]), case_cache.variant([("type:T", 2)])
    assert a and b and a != b and case_cache.variant([("type:T", 1), ("type:T", 1)]) == a


def test_summary_lines_one_per_spec_with_count():
    found = {UNIQUE: [{"factor": "type:T", "value": v, "message": "m"} for v in ("uint8", "int16")],
             "onnx::Abs-13": [{"factor": "type:T", "value": "bfloat16", "message": "m"}]}
    lines = probe.summary_lines("onnxruntime", found)
    assert lines[0].startswith("unsupported factor values") and "3 in 2 spec versions" in lines[0]
    assert "  onnxruntime: onnx::Abs-13 does not implement type:T=bfloat16" in lines
    assert "  onnxruntime: onnx::Unique-11 does not implement type:T=uint8, int16 (2 values)" in lines
    many = {f"onnx::Op{i}-1": found[UNIQUE] for i in range(30)}
    assert probe.summary_lines("x", many, limit=5)[-1] == "  ... 25 more spec versions (run.json: unsupported_factors)"


# ------------------------------------------------------------------ onnxruntime
class _Named:
    """The parent-side face of a backend the survey reads (name, version): the workers load the
    real one, so a test can ask as if another version were installed."""

    def __init__(self, name: str, version: str):
        self.name, self._version = name, version

    def version(self) -> str:
        return self._version


def _ort_refuses(type_name: str) -> bool:
    """Whether onnxruntime itself, asked directly, refuses Unique-11 on a tensor of this type."""
    import numpy as np
    import onnx
    import onnxruntime
    from onnx import helper

    from opconform import dtypes

    t = dtypes.get(type_name)
    x = helper.make_tensor_value_info("x", t.onnx, [None])
    y = helper.make_tensor_value_info("y", t.onnx, [None])
    node = helper.make_node("Unique", ["x"], ["y"])
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    onnx.checker.check_model(model)
    try:
        s = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        s.run(None, {"x": np.zeros(2, t.numpy) if t.numpy is not object else np.array(["a", "b"], object)})
    except Exception:  # noqa: BLE001 - any refusal: not implemented for this type
        return True
    return False


@pytest.fixture(scope="module")
def ort_survey(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    import os

    cache = tmp_path_factory.mktemp("probe-cache")
    old = os.environ.get("OPCONFORM_CACHE")
    os.environ["OPCONFORM_CACHE"] = str(cache)  # restored below: the survey's own cache only
    try:
        first = probe.survey(_Named("onnxruntime", "v1"), "onnxruntime", [UNIQUE], jobs=2, timeout=60)
        again = probe.survey(_Named("onnxruntime", "v1"), "onnxruntime", [UNIQUE], jobs=2, timeout=60)
        other = probe.survey(_Named("onnxruntime", "v2"), "onnxruntime", [UNIQUE], jobs=2, timeout=60)
    finally:
        if old is None:
            del os.environ["OPCONFORM_CACHE"]
        else:
            os.environ["OPCONFORM_CACHE"] = old
    return first, again, other


@pytest.mark.backend
def test_probe_agrees_with_onnxruntime(ort_survey):
    first, _, _ = ort_survey
    found = {f.value for f in first.findings[UNIQUE] if f.factor == "type:T"}
    t = next(f for f in factors(specs.load(UNIQUE)) if f.name == "type:T")
    refused = {v for v in t.values if _ort_refuses(v)}
    assert refused, "onnxruntime implements Unique for every type: nothing to find"
    assert found == refused
    assert all(f.factor == "type:T" for f in first.findings[UNIQUE])  # attributes and outputs all implemented
    assert all(f.message and "\n" not in f.message for f in first.findings[UNIQUE])
    assert first.probes > 0 and first.asked == 1 and first.cached == 0


@pytest.mark.backend
def test_probe_cache_reused_and_keyed_by_version(ort_survey):
    first, again, other = ort_survey
    assert again.probes == 0 and again.cached == 1 and again.asked == 0
    assert [f.to_json() for f in again.findings[UNIQUE]] == [f.to_json() for f in first.findings[UNIQUE]]
    assert other.probes == first.probes and other.cached == 0  # another version: asked again


@pytest.mark.backend
def test_run_lists_unsupported_values_once_and_draws_none_beyond_evidence(tmp_path):
    pytest.importorskip("onnxruntime")
    env = {"OPCONFORM_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "out"
    proc = run_cli("--backend", "onnxruntime", "--spec", UNIQUE, "--profile", "ci", "--seed", "11", "--jobs", "2",
                   "--no-report", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = json.loads((out / "run.json").read_text())
    listed = meta["unsupported_factors"][UNIQUE]
    assert listed and all(set(d) == {"factor", "value", "message"} for d in listed)
    pairs = [(d["factor"], d["value"]) for d in listed]
    assert len(pairs) == len(set(pairs))  # once each
    banned = {v for f, v in pairs if f == "type:T"}
    got = rows(out)
    drawn = [r for r in got if not r["extra"]["label"].startswith("example:")]  # the spec file's own stay
    holding = Counter(r["extra"]["dtypes"][0] for r in drawn if r["extra"]["dtypes"][0] in banned)
    assert holding == Counter({v: 1 for v in banned})  # the probe case, nothing more
    evidence = [r for r in got if r["extra"]["dtypes"][0] in banned]
    assert {r["verdict"] for r in evidence} == {"unsupported"}
    unsupported = sum(r["verdict"] == "unsupported" for r in got)
    assert unsupported == len(banned)
    assert f"onnxruntime: {UNIQUE} does not implement type:T=" in proc.stderr
    assert meta["probing"]["probes"] > 0
    # the probe's own cases start the rows; its answers to them are their results, recorded once
    assert 0 < meta["probing"]["results_from_probes"] <= meta["probing"]["probes"]
    assert len({r["case_id"] for r in got}) == len(got)

    # a second run of the same backend version asks nothing, and draws the same cases
    again = tmp_path / "again"
    proc = run_cli("--backend", "onnxruntime", "--spec", UNIQUE, "--profile", "ci", "--seed", "11", "--jobs", "2",
                   "--no-report", "--out", str(again), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta2 = json.loads((again / "run.json").read_text())
    assert meta2["probing"]["probes"] == 0 and meta2["unsupported_factors"] == meta["unsupported_factors"]
    assert sorted(r["case_id"] for r in rows(again)) == sorted(r["case_id"] for r in got)

    # --no-probe: the rows hold every value again
    plain = tmp_path / "plain"
    proc = run_cli("--backend", "onnxruntime", "--spec", UNIQUE, "--profile", "ci", "--seed", "11", "--jobs", "2",
                   "--no-report", "--no-probe", "--out", str(plain), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta3 = json.loads((plain / "run.json").read_text())
    assert meta3["probe"] is False and "unsupported_factors" not in meta3
    assert sum(r["verdict"] == "unsupported" for r in rows(plain)) > 3 * unsupported


# ------------------------------------------------------------------ broken backend
def _probe_case_ids(spec_id: str) -> dict[str, str]:
    """{type value: probe case id} as a run draws them, in a fresh interpreter (as helpers_runner
    does for planned cases)."""
    code = ("import json,sys; from opconform.suites import probe; d = probe.draw(sys.argv[1]); "
            "k = d.names.index('type:T'); "
            "print(json.dumps({d.shown[k][i]: d.cases[r].id for n, i, r in d.probes if n == 'type:T' and d.cases[r]}))")
    proc = subprocess.run([sys.executable, "-c", code, spec_id], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_crashing_probe_is_survived(tmp_path):
    """One probe segfaults the backend, one answers unsupported: the run goes on, the crash
    excludes nothing, the unsupported value is excluded with its one evidence case."""
    spec_id = "onnx::Abs-13"
    ids = _probe_case_ids(spec_id)
    assert {"float64", "uint8"} <= set(ids)
    env = write_plan(tmp_path / "plan.json", {ids["float64"]: "segv", ids["uint8"]: "unsupported", "*": "pass"})
    env["OPCONFORM_CACHE"] = str(tmp_path / "cache")
    out = tmp_path / "out"
    proc = run_cli("--backend", BROKEN, "--spec", spec_id, "--profile", "ci", "--jobs", "2", "--timeout", "20",
                   "--no-report", "--out", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = json.loads((out / "run.json").read_text())
    assert meta["unsupported_factors"] == {spec_id: [{"factor": "type:T", "value": "uint8",
                                                      "message": "Unsupported: broken backend does not implement this element type"}]}
    got = rows(out)
    types = Counter(r["extra"]["dtypes"][0] for r in got)
    assert types["uint8"] == 1 and types["float64"] > 1  # crashed: not excluded
    assert [r["verdict"] for r in got if r["case_id"] == ids["uint8"]] == ["unsupported"]


def test_resume_keeps_the_recorded_probe_setting(tmp_path):
    from opconform.suites import results, runner

    results.write_run(tmp_path, {"backend": "onnxruntime", "spec_pattern": UNIQUE, "profile": "ci", "seed": 0,
                                 "shard": None, "cases_from": None, "probe": True})
    config = runner.RunConfig(backend="onnxruntime", out=tmp_path)
    with pytest.raises(ValueError, match="--no-probe contradicts the recorded run"):
        runner.resumed_config(config, {"probe": False})
    assert runner.resumed_config(config, {}).probing
    results.write_run(tmp_path, {"backend": "onnxruntime", "spec_pattern": UNIQUE, "profile": "ci", "seed": 0,
                                 "shard": None, "cases_from": None})  # recorded before probing existed
    assert not runner.resumed_config(config, {"probe": False}).probing
