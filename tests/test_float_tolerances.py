"""Issue 13 item 4: every float type has a tolerance of its own. float64 used to fall back to
float32's, so a float64 operator computed in float32 passed. A non-exact tolerance now names each
float type the version admits (the loader refuses one that does not), and a float64 result
computed through float32 is a mismatch while the honest float64 result passes."""
from pathlib import Path

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.generator import generate_rows
from opconform.model import Outcome, SpecError, Verdict
from opconform.suites.verdicts import judge

from helpers_oracle import verdict
from test_specs_loader import GOOD, write

FLOATS = ("float16", "bfloat16", "float32", "float64")


def _float64_cases(spec, count=24, seed=13):
    """Real valid float64 cases of a spec version, drawn as a run draws them (ci sizes)."""
    rows = [{"type:T": "float64"}] * count
    drawn = generate_rows(spec, rows, seed=seed, profile="ci", expect=oracle.expectation)
    return [c for _, c in drawn.cases if c.expected.kind == "outputs"]


def _through_float32(spec, case):
    """The case's outputs computed in float32 and cast back to float64 (what a backend that
    computes float64 in float32 returns)."""
    with np.errstate(all="ignore"):  # float64 values past float32's range become inf, as in float32 they are
        narrow = [None if x is None else (x.astype(np.float32) if x.dtype == np.float64 else x) for x in case.inputs]
        outs = oracle.evaluate(spec, narrow, case.attributes)
    return [o.astype(np.float64) if o.dtype == np.float32 else o for o in outs]


@pytest.mark.parametrize("spec_id", ["onnx::Log-13", "onnx::Exp-13", "onnx::Sqrt-13", "onnx::MatMul-13"])
def test_float64_computed_in_float32_is_a_mismatch(spec_id):
    spec = specs.load(spec_id)
    cases = _float64_cases(spec)
    assert len(cases) >= 6, f"{spec_id}: only {len(cases)} valid float64 cases drawn"
    caught, altered = 0, 0
    for case in cases:
        honest = list(case.expected.alternatives[0].outputs)
        assert judge(spec, case, Outcome("ok", honest))[0] is Verdict.PASS, case.id
        narrow = _through_float32(spec, case)
        # only a case with a value float32 changes tells: not one whose outputs are empty, NaN or
        # exact in float32, nor one whose changes all lie near 0 (below 1e-3, where the absolute
        # tolerance, not the type, decides)
        if not any(_changed_in_normal_range(a, b) for a, b in zip(narrow, honest)):
            continue
        altered += 1
        caught += judge(spec, case, Outcome("ok", narrow))[0] is Verdict.MISMATCH
    assert altered >= 3, f"{spec_id}: only {altered} of {len(cases)} cases change in float32"
    assert caught == altered, f"{spec_id}: {caught} of {altered} float32-computed results caught"


def _changed_in_normal_range(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.any((got != want) & np.isfinite(want) & (np.abs(want) >= 1e-3)))


# float64 entries that say why the text computes in float32 (`narrower:`): the normalizations'
# stash_type, the windows' function bodies. Another needs a reason as good, and a line here
COMPUTED_NARROWER_BY_THE_TEXT = {"LayerNormalization", "GroupNormalization", "RMSNormalization",
                                 "HannWindow", "HammingWindow", "BlackmanWindow",
                                 # OpenVINO's document: "Any type other than f32 will be converted to f32"
                                 "Inverse"}


def test_every_non_exact_tolerance_names_each_float_type_it_admits():
    for v in specs.all_versions():
        t = v.tolerance
        if not (t.rtol or t.atol or any(r or a for r, a in t.per_type.values())):
            continue
        admitted = {ty for p in v.inputs + v.outputs for ty in p.types if ty in FLOATS}
        assert admitted <= set(t.per_type), (v.id, admitted - set(t.per_type))
        if "float64" in t.per_type and v.operator not in COMPUTED_NARROWER_BY_THE_TEXT:
            assert t.for_type("float64")[0] < np.finfo(np.float32).eps / 2, v.id


SPEC = GOOD.replace("{T: [float32]}", "{T: [float32, float64]}") + """\
    tolerance:
      per_type:
        float32: {rtol: 1.0e-5, atol: 1.0e-6}
        float64: {rtol: 1.0e-12, atol: 1.0e-13}
"""


def _load(tmp_path: Path, text: str):
    return specs.load_file(write(tmp_path, "Foo", text)).version(1)


def test_a_tolerance_per_float_type_loads(tmp_path):
    v = _load(tmp_path, SPEC)
    assert v.tolerance.for_type("float64") == (1e-12, 1e-13)
    assert v.tolerance.for_type("float32") == (1e-5, 1e-6)


@pytest.mark.parametrize("mutation, expected", [
    (("        float64: {rtol: 1.0e-12, atol: 1.0e-13}\n", ""), "tolerance.per_type: no entry for float64"),
    (("      per_type:", "      rtol: 1.0e-5\n      per_type:"), None),  # a base value stands for no float type
    (("float64: {rtol: 1.0e-12", "float64: {rtol: 1.0e-7"), "per_type.float64.rtol: got 1e-07, expected below 5.96e-08"),
    (("float32: {rtol: 1.0e-5", "float32: {rtol: 1.0e-3"), "per_type.float32.rtol: got 0.001, expected below 0.000488"),
])
def test_a_tolerance_that_lets_a_narrower_computation_pass_is_refused(tmp_path, mutation, expected):
    text = SPEC.replace(*mutation)
    assert text != SPEC
    if expected is None:
        assert _load(tmp_path, text).tolerance.for_type("float64") == (1e-12, 1e-13)
        return
    with pytest.raises(SpecError) as e:
        _load(tmp_path, text)
    assert expected in str(e.value) and "Foo.yaml" in str(e.value) and "\n" not in str(e.value)


def test_an_exact_spec_needs_no_per_type_entries(tmp_path):
    text = SPEC.replace("    tolerance:\n      per_type:\n        float32: {rtol: 1.0e-5, atol: 1.0e-6}\n"
                        "        float64: {rtol: 1.0e-12, atol: 1.0e-13}\n", "")
    assert _load(tmp_path, text).tolerance.for_type("float64") == (0.0, 0.0)


def test_an_entry_that_says_why_the_text_computes_narrower_may_be_coarser(tmp_path):
    text = SPEC.replace("float64: {rtol: 1.0e-12, atol: 1.0e-13}",
                        "float64: {rtol: 1.0e-4, atol: 1.0e-4, narrower: 'stash_type is float32'}")
    assert _load(tmp_path, text).tolerance.for_type("float64") == (1e-4, 1e-4)


def test_float_attributes_reach_the_oracle_as_the_float32_a_model_stores():
    # 1 / sqrt(0 + epsilon) with the default epsilon 1e-5: float32's 9.99999974737875e-06 gives
    # 316.22777001113064 (onnxruntime), the double 1e-5 316.2277660168379, 1.3e-8 apart
    spec = specs.load("onnx::BatchNormalization-15")
    assert oracle.stored_attributes(spec, {})["epsilon"] == float(np.float32(1e-5))
    one = lambda v: np.array([v], np.float64)  # noqa: E731
    inputs = [np.ones((1, 1, 1), np.float64), one(1.0), one(0.0), one(0.0), one(0.0)]
    got = np.full((1, 1, 1), 1 / np.sqrt(np.float64(np.float32(1e-5))))
    assert verdict(spec.id, inputs, {}, got)[0] is Verdict.PASS
    assert verdict(spec.id, inputs, {}, np.full((1, 1, 1), 1 / np.sqrt(1e-5)))[0] is Verdict.MISMATCH
