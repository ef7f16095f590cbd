"""The ai.onnx.preview.training dialect (onnx_training, specs/dialects.py): the optimizers Adagrad,
Adam and Momentum load under their domain, their official node cases agree, their oracles agree
with onnx.reference's implementations on drawn cases (values; onnx.reference's element types are
its own: it widens float32 to float64 with a float64 R), onnxruntime (no training kernels in its
inference build) answers unsupported, and specs --missing and coverage count the domain."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.oracle import official
from opconform.reports import coverage
from opconform.specs import catalog, dialects
from helpers_generator import load_or_fail

OPTIMIZERS = ("Adagrad", "Adam", "Momentum")


@functools.lru_cache(maxsize=None)
def drawn(spec_id: str, count: int, seed: int) -> tuple:
    from opconform.generator import generate

    return tuple(generate(load_or_fail(spec_id), count, seed, expect=oracle.expectation))


def test_the_training_domain_is_a_dialect_of_onnx_models():
    d = dialects.get("onnx_training")
    assert d.domain == "ai.onnx.preview.training" and dialects.is_onnx("onnx_training")
    assert dialects.for_onnx_domain("ai.onnx.preview.training").name == "onnx_training"
    for op in OPTIMIZERS:
        v = specs.load(f"onnx_training::{op}-1")
        assert v.domain == "ai.onnx.preview.training" and oracle.has_oracle(v)


@pytest.mark.parametrize("op", OPTIMIZERS)
def test_official_cases_agree(op):
    results = official.check_operator(op, "onnx_training")
    assert len(results) >= 2 and all(r.passed for r in results), [r.message for r in results if not r.passed]


@pytest.mark.parametrize("op", OPTIMIZERS)
def test_oracles_agree_with_onnx_reference_on_drawn_cases(op):
    """onnx.reference's optimizer kernels (onnx/reference/ops/aionnx_preview_training) as a second
    opinion, on the model of every drawn valid case (values only: its element types are its own)."""
    from onnx.reference import ReferenceEvaluator

    from opconform.generator import onnx_model

    spec = specs.load(f"onnx_training::{op}-1")
    checked = 0
    for c in drawn(spec.id, 30, 0):
        if c.expected.kind != "outputs":
            continue
        model = onnx_model.build(spec, c, opset=1)
        feeds = dict(zip(onnx_model.input_names(spec, c), c.inputs))
        with np.errstate(all="ignore"):
            want = ReferenceEvaluator(model).run(None, feeds)
        for g, w in zip(c.expected.alternatives[0].outputs, want):
            tight = g.dtype == np.float64 and np.asarray(w).dtype == np.float64 and c.inputs[0].dtype == np.float64
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                       rtol=1e-12 if tight else 1e-5, atol=1e-12 if tight else 1e-5)
        checked += 1
    assert checked >= 8


def test_drawn_cases_hold_their_groups_and_break_them_as_errors():
    for op in OPTIMIZERS:
        cases = drawn(f"onnx_training::{op}-1", 30, 0)
        valid = [c for c in cases if c.expected.kind == "outputs"]
        per = 4 if op == "Adam" else 3
        assert valid and all((len(c.inputs) - 2) % per == 0 for c in valid)
        assert all(len(c.expected.alternatives[0].outputs) == (per - 1) * (len(c.inputs) - 2) // per for c in valid)
        assert any(c.expected.kind == "error" for c in cases)


@pytest.mark.backend
def test_onnxruntime_has_no_training_kernels_and_says_unsupported():
    pytest.importorskip("onnxruntime")
    from opconform import backends

    ort = backends.get("onnxruntime")
    for op in OPTIMIZERS:
        spec = specs.load(f"onnx_training::{op}-1")
        case = next(c for c in drawn(spec.id, 30, 0) if c.expected.kind == "outputs")
        outcome = ort.execute(spec, case)
        assert outcome.status == "unsupported", (outcome.status, outcome.message[:300])
        assert "is not a registered function/op" in outcome.message


def test_missing_and_coverage_count_the_training_domain():
    listed = {op.name for op in catalog.all_operators() if op.dialect == "onnx_training"}
    assert {"Adagrad", "Adam", "Momentum", "Gradient"} <= listed
    assert not {f"{op.dialect}::{op.name}" for op in catalog.missing()} & {f"onnx_training::{op}" for op in listed}
    ops = coverage.operators()
    assert "onnx_training::Adam" in ops and "onnx_training::Gradient" in ops
    assert coverage.row("onnx_training::Adam").versions == [1]
    assert coverage.row("onnx_training::Gradient").versions == [1]


# ---------------------------------------------------------------- Gradient
GRADIENT = "onnx_training::Gradient-1"


def test_gradient_official_cases_are_read_from_the_model_cases_and_agree():
    """test_gradient_of_add and test_gradient_of_add_and_mul: models of forward nodes and the
    Gradient node (onnx.backend.test.case.model), read into cases whose forward graph is the rest."""
    results = official.check_operator("Gradient", "onnx_training")
    names = {r.case.name for r in results}
    assert {"test_gradient_of_add", "test_gradient_of_add_and_mul"} <= names
    assert all(r.passed for r in results), [r.message for r in results if not r.passed]
    mul = next(r.case for r in results if r.case.name == "test_gradient_of_add_and_mul")
    assert [n.operator for n in mul.attributes["forward"].nodes] == ["Add", "Mul"]


def test_gradient_official_case_fails_against_a_wrong_expectation():
    """The check can fail: the add_and_mul case's dd/da (2a + b = 4) is not dd/db's (a = 1)."""
    import dataclasses

    case = next(c for c in official.cases_for("Gradient", "onnx_training") if c.name == "test_gradient_of_add_and_mul")
    swapped = dataclasses.replace(case, expected=case.expected[::-1])
    assert not official.run(swapped).passed


def _torch_gradients(case) -> list[np.ndarray]:
    """A second opinion: the forward graph written in torch and differentiated by autograd, in float64."""
    import torch

    ops = {"Identity": lambda a: a, "Neg": torch.neg, "Exp": torch.exp, "Tanh": torch.tanh,
           "Sigmoid": torch.sigmoid, "Add": torch.add, "Sub": torch.sub, "Mul": torch.mul}
    forward = case.attributes["forward"]
    env = {v.name: torch.tensor(np.asarray(x, np.float64), requires_grad=True) for v, x in zip(forward.inputs, case.inputs)}
    leaves = dict(env)
    for n in forward.nodes:
        env[n.outputs[0]] = ops[n.operator](*(env[x] for x in n.inputs))
    env[case.attributes["y"]].sum().backward()
    return [np.zeros(leaves[x].shape) if leaves[x].grad is None else leaves[x].grad.numpy() for x in case.attributes["xs"]]


def test_gradient_oracle_agrees_with_torch_autograd_on_drawn_cases():
    pytest.importorskip("torch")
    spec = specs.load(GRADIENT)
    valid = [c for c in drawn(GRADIENT, 40, 0) if c.expected.kind == "outputs"]
    assert len(valid) >= 10
    for c in valid:
        got = c.expected.alternatives[0].outputs
        assert len(got) == len(c.attributes["xs"])
        rtol, atol = spec.tolerance.for_type(str(got[0].dtype))
        for g, w in zip(got, _torch_gradients(c)):
            np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=rtol, atol=atol,
                                       err_msg=c.attributes["forward"].text())


def test_gradient_with_respect_to_an_intermediate_tensor():
    """"Gradient operator can compute derivative against intermediate tensors": d = c * a, dd/dc = a."""
    from opconform.graphs import Graph, GraphValue, Node

    f32 = "float32"
    forward = Graph((GraphValue("a", f32, 0), GraphValue("b", f32, 0)), (GraphValue("d", f32, 0),),
                    (Node("onnx::Add-14", ("a", "b"), ("c",)), Node("onnx::Mul-14", ("c", "a"), ("d",))), 14, "forward")
    a, b = np.array(3.0, np.float32), np.array(2.0, np.float32)
    (dd_dc,) = oracle.evaluate(GRADIENT, [a, b], {"xs": ["c"], "y": "d", "forward": forward})
    assert dd_dc.dtype == np.float32 and abs(float(dd_dc) - 3.0) < 1e-5


def test_gradient_must_refuse_cases_name_the_broken_relation():
    cases = drawn(GRADIENT, 40, 0)
    broken = {c.expected.relation for c in cases if c.expected.kind == "error"}
    assert "xs_name_tensors" in broken or "y_names_a_tensor" in broken, broken
    for c in cases:
        if c.expected.relation == "xs_name_tensors":
            assert "not_a_tensor" in c.attributes["xs"]


def test_gradient_model_holds_the_forward_nodes_and_reads_xs_then_zs():
    import onnx

    from opconform.generator import onnx_model

    spec = specs.load(GRADIENT)
    for c in drawn(GRADIENT, 40, 0):
        if c.expected.kind != "outputs":
            continue
        model = onnx_model.build(spec, c)
        onnx.checker.check_model(model)
        forward = c.attributes["forward"]
        assert [n.op_type for n in model.graph.node] == [n.operator for n in forward.nodes] + ["Gradient"]
        grad = model.graph.node[-1]
        assert list(grad.input) == list(c.attributes["xs"]) + list(c.attributes.get("zs", []))
        assert "forward" not in {a.name for a in grad.attribute}
        assert [i.name for i in model.graph.input] == [v.name for v in forward.inputs]
        assert {(o.domain, o.version) for o in model.opset_import} == {("ai.onnx.preview.training", 1), ("", forward.opset)}


@pytest.mark.backend
def test_gradient_is_unsupported_on_onnxruntime_and_onnx_reference():
    pytest.importorskip("onnxruntime")
    from opconform import backends

    spec = specs.load(GRADIENT)
    case = next(c for c in drawn(GRADIENT, 40, 0) if c.expected.kind == "outputs")
    for name in ("onnxruntime", "reference"):
        outcome = backends.get(name).execute(spec, case)
        assert outcome.status == "unsupported", (name, outcome.status, outcome.message[:300])
