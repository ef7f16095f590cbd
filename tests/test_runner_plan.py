"""Planning a run: variants share their base case's model signature and stay valid, cases are
grouped by signature into batches, shards split the cases deterministically and completely."""
import numpy as np

from helpers_runner import BROKEN, planned_cases, rows, run_cli, write_plan
from opconform import oracle, specs
from opconform.generator import onnx_model
from opconform.model import Case
from opconform.generator import variants
from opconform.suites import plan


def _case(spec_id, inputs, attributes=None):
    spec = specs.load(spec_id)
    return spec, Case(spec_id, attributes or {}, tuple(inputs), (True,) * len(spec.outputs),
                      oracle.expectation(spec, inputs, attributes or {}))


def test_variants_share_the_signature_and_expect_what_the_base_expects():
    spec, base = _case("onnx::Add-14", [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((1, 3), np.float32)])
    found = variants.variants(spec, base, 12, 0, size="ci", expect=oracle.expectation)
    assert len(found) >= 4
    for v in found:
        assert onnx_model.signature(spec, v) == onnx_model.signature(spec, base)
        assert v.expected.kind == "outputs" and v.id != base.id
        assert all(s.state != "broken" for s in specs.check_all(spec, list(v.inputs), v.attributes))
        assert v.label.endswith(";variant")
    again = variants.variants(spec, base, 12, 0, size="ci", expect=oracle.expectation)
    assert [v.id for v in again] == [v.id for v in found]  # seeded: same variants every time


def test_variants_of_a_must_refuse_case_break_the_same_relation():
    spec, base = _case("onnx::GatherND-13", [np.zeros((2, 2), np.float32), np.array([[0, 2]], np.int64)])
    assert base.expected.kind == "error"
    for v in variants.variants(spec, base, 12, 0, size="ci", expect=oracle.expectation):
        assert v.expected.kind == "error" and v.expected.relation == base.expected.relation


def test_variants_ask_for_no_output_bigger_than_the_size_profile_or_the_base():
    # Range's output size is its inputs' values: edge values (a subnormal delta) would ask for
    # millions of elements (an onnxruntime worker once passed 4 GiB on one such float16 variant)
    spec, base = _case("onnx::Range-27", [np.float16(1), np.float16(9), np.float16(2)])
    found = variants.variants(spec, base, 15, 0, size="ci", expect=oracle.expectation)  # unbounded: 11,397,701 elements
    assert found, "every variant dropped: the bound is too tight"
    biggest = max(o.size for v in found for a in v.expected.alternatives for o in a.outputs)
    assert biggest <= 256  # the ci size profile's max_elements (the base's output has 4)


def test_batches_keep_signature_groups_whole():
    spec, a = _case("onnx::Abs-13", [np.ones((2, 2), np.float32)])
    items = [("onnx::Abs-13", c) for c in [a] + variants.variants(spec, a, 8, 0, size="ci", expect=oracle.expectation)]
    _, b = _case("onnx::Abs-13", [np.ones(3, np.int32)])
    items.append(("onnx::Abs-13", b))
    groups = plan.group(items)
    assert len(groups) == 2
    batches = plan.batches(groups, size=len(items) - 1)
    assert [len(x) for x in batches] == [len(items) - 1, 1]
    assert plan.batches(groups, size=4)[0][0][1].id == a.id


def test_shards_partition_the_cases(tmp_path):
    env = write_plan(tmp_path / "plan.json", {"*": "pass"})
    whole = tmp_path / "whole"
    # the shards run the whole run's cases, so that edits to the generator meanwhile cannot differ them
    assert run_cli("--backend", BROKEN, "--spec", "onnx::Abs-13,onnx::GatherND-13", "--out", str(whole), env=env).returncode == 0
    seen = []
    for k in (1, 2):
        out = tmp_path / f"s{k}"
        proc = run_cli("--backend", BROKEN, "--cases-from", str(whole), "--shard", f"{k}/2", "--out", str(out), env=env)
        assert proc.returncode == 0, proc.stderr[-1500:]
        got = rows(out)
        assert got and all(r["extra"]["shard"] == f"{k}/2" for r in got)
        seen.append({r["case_id"] for r in got})
    assert not seen[0] & seen[1]
    assert seen[0] | seen[1] == {r["case_id"] for r in rows(whole)}


def test_a_call_past_its_time_limit_is_given_up_not_waited_for():
    import time

    from opconform.suites import taskpool

    done, failed = {}, {}
    t0 = time.monotonic()
    taskpool.run(time.sleep, [(0.01,), (600,), (0.02,)], jobs=2, timeout=3,
                 on_done=done.__setitem__, on_failed=failed.__setitem__)
    assert set(done) == {0, 2} and list(failed) == [1] and "longer than 3 s" in failed[1]
    assert time.monotonic() - t0 < 60


def test_cases_from_another_run_are_the_same_cases(tmp_path):
    env = write_plan(tmp_path / "plan.json", {"*": "pass"})
    first, second = tmp_path / "a", tmp_path / "b"
    assert run_cli("--backend", BROKEN, "--spec", "onnx::Abs-13", "--out", str(first), env=env).returncode == 0
    proc = run_cli("--backend", BROKEN, "--cases-from", str(first), "--out", str(second), env=env)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert sorted(r["case_id"] for r in rows(second)) == sorted(r["case_id"] for r in rows(first))
