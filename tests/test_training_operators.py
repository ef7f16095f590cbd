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
    assert "onnx_training::Gradient" in {f"{op.dialect}::{op.name}" for op in catalog.missing()}
    ops = coverage.operators()
    assert "onnx_training::Adam" in ops and "onnx_training::Gradient" in ops
    assert coverage.row("onnx_training::Adam").versions == [1]
    assert coverage.row("onnx_training::Gradient").missing == ["no spec"]
