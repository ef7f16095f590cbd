"""OpenVINO's other NMS operations against independent readings: MulticlassNonMaxSuppression-9 with
nms_eta 1 keeps per class what NonMaxSuppression-9 keeps (its corners reordered), its roisnum form
what the shared form keeps image by image; MatrixNms-8's decay worked by hand from the document's
six steps; NMSRotated-13 with angle 0 keeps what NonMaxSuppression-9 keeps on centre boxes, and its
rotated IoU is the area worked by hand for a right-angle cross and an octagon. The documents'
examples (worked by hand, see the specs) run on openvino-native."""
from __future__ import annotations

import math

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken, Verdict
from opconform.oracle.openvino.nmsrotated import rotated_iou


def _evaluate(spec_id: str, inputs: list, attributes: dict, policies: dict | None = None) -> tuple:
    spec = specs.load(spec_id)
    return oracle.evaluate(spec, inputs, spec.resolved_attributes(attributes), policies=policies)


def _boxes(rng, batches: int, count: int) -> np.ndarray:
    low = rng.uniform(0, 4, (batches, count, 2))
    return np.concatenate([low, low + rng.uniform(0.5, 2, (batches, count, 2))], axis=-1).astype(np.float32)


@pytest.mark.parametrize("seed", range(4))
def test_multiclass_keeps_per_class_what_nonmaxsuppression_keeps(seed):
    rng = np.random.default_rng(seed)
    boxes = _boxes(rng, 2, 6)  # [xmin, ymin, xmax, ymax]
    scores = (rng.permutation(24) / 32 + 1 / 64).reshape(2, 2, 6).astype(np.float32)  # distinct
    selected, indices, counts = _evaluate("openvino::MulticlassNonMaxSuppression-9", [boxes, scores],
                                          {"iou_threshold": 0.3, "score_threshold": 0.2, "sort_result": "class"})
    kept, _, _ = _evaluate("openvino::NonMaxSuppression-9",
                           [boxes[..., [1, 0, 3, 2]], scores, np.array(6, np.int64), np.array(0.3, np.float32), np.array(0.2, np.float32)],
                           {"sort_result_descending": False})
    ours = sorted((int(i) // 6, int(row[0]), int(i) % 6) for row, (i,) in zip(selected, indices))
    assert ours == sorted(map(tuple, kept.tolist()))
    assert counts.tolist() == [sum(1 for b, _, _ in ours if b == k) for k in range(2)]
    for row, (i,) in zip(selected, indices):  # each row is its box with its own score
        b, k = divmod(int(i), 6)
        assert row[2:].tolist() == boxes[b, k].tolist() and row[1] == scores[b, int(row[0]), k]


def test_multiclass_roisnum_form_is_the_shared_form_image_by_image():
    rng = np.random.default_rng(5)
    boxes = _boxes(rng, 1, 5)[0]
    scores = (rng.permutation(10) / 16 + 1 / 64).reshape(2, 5).astype(np.float32)
    attrs = {"iou_threshold": 0.25, "sort_result": "score"}
    per_class = np.stack([boxes, boxes])  # each class its own (here equal) boxes
    selected, indices, counts = _evaluate("openvino::MulticlassNonMaxSuppression-9",
                                          [per_class, scores, np.array([3, 2], np.int64)], attrs, {"roisnum_index": "class_major"})
    rows = []
    for image, (start, stop) in enumerate([(0, 3), (3, 5)]):
        shared, _, count = _evaluate("openvino::MulticlassNonMaxSuppression-9", [boxes[None, start:stop], scores[None, :, start:stop]], attrs)
        assert counts[image] == count[0]
        rows += shared.tolist()
    assert selected.tolist() == rows
    assert all(int(i) // 5 == int(row[0]) for row, (i,) in zip(selected, indices))  # class * num_boxes + box


def test_multiclass_ties_are_open():
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], np.float32)
    with pytest.raises(RelationBroken, match="ties_unordered"):
        _evaluate("openvino::MulticlassNonMaxSuppression-9", [boxes, np.array([[[0.5, 0.5]]], np.float32)], {"sort_result": "score"})


def test_matrix_nms_decay_worked_from_the_six_steps():
    """Boxes 0 and 1 overlap with IoU 1/3, box 2 apart: X = [[0, 1/3, 0], [0, 0, 0], [0, 0, 0]],
    K = [0, 1/3, 0]; linear: box 1 decays by (1 - 1/3) / (1 - 0); gaussian (sigma 0.5): exp((0 - 1/9) 0.5)."""
    boxes = np.array([[[0, 0, 2, 2], [0, 1, 2, 3], [5, 5, 6, 6]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.3]]], np.float32)
    linear, _, _ = _evaluate("openvino::MatrixNms-8", [boxes, scores], {"sort_result": "score"})
    np.testing.assert_allclose(linear[:, 1], [0.9, 0.8 * 2 / 3, 0.3], rtol=1e-6)
    gaussian, _, _ = _evaluate("openvino::MatrixNms-8", [boxes, scores],
                               {"sort_result": "score", "decay_function": "gaussian", "gaussian_sigma": 0.5})
    np.testing.assert_allclose(gaussian[:, 1], [0.9, 0.8 * math.exp(-0.5 / 9), 0.3], rtol=1e-6)
    unnormalized, _, _ = _evaluate("openvino::MatrixNms-8", [boxes, scores], {"sort_result": "score", "normalized": False})
    np.testing.assert_allclose(unnormalized[:, 1], [0.9, 0.8 * (1 - 6 / 12), 0.3], rtol=1e-6)  # (2+1)(1+1) of 9 + 9 - 6


def test_matrix_nms_duplicate_box_with_linear_decay_is_undefined():
    boxes = np.array([[[0, 0, 2, 2], [0, 0, 2, 2], [0, 1, 2, 3]]], np.float32)
    with pytest.raises(RelationBroken, match="linear_decay_of_a_duplicate"):
        _evaluate("openvino::MatrixNms-8", [boxes, np.array([[[0.9, 0.8, 0.7]]], np.float32)], {})


def test_rotated_iou_worked_by_hand():
    level = np.array([0, 0, 2, 1, 0.0])
    assert rotated_iou(level, np.array([0, 0, 2, 1, math.pi / 2]), True) == pytest.approx(1 / 3)  # a 1 x 1 cross
    square = np.array([1, 1, 2, 2, 0.0])
    octagon = 8 * (math.sqrt(2) - 1)  # two 2 x 2 squares turned by pi/4 about one centre
    assert rotated_iou(square, np.array([1, 1, 2, 2, math.pi / 4]), False) == pytest.approx(octagon / (8 - octagon))
    assert rotated_iou(square, np.array([2, 1, 2, 2, 0.0]), True) == pytest.approx(2 / 6)


def test_rotated_iou_turns_clockwise_on_the_image():
    """A 4 x 1 bar at (1, 1) turned by +pi/4 clockwise on an image (y down) points down-right, through
    the level bar's centre; counterclockwise it points up-right and crosses less of it."""
    level, turned = np.array([0, 0, 4, 1, 0.0]), np.array([1, 1, 4, 1, math.pi / 4])
    assert rotated_iou(level, turned, True) > rotated_iou(level, turned, False)


@pytest.mark.parametrize("seed", range(3))
def test_nms_rotated_at_angle_zero_is_nonmaxsuppression_on_centre_boxes(seed):
    rng = np.random.default_rng(seed)
    centre = np.concatenate([rng.uniform(0, 4, (1, 6, 2)), rng.uniform(0.5, 3, (1, 6, 2))], axis=-1).astype(np.float32)
    scores = (rng.permutation(12) / 16 + 1 / 64).reshape(1, 2, 6).astype(np.float32)
    rest = [np.array(4, np.int64), np.array(0.2, np.float32), np.array(0.1, np.float32)]
    rotated = _evaluate("openvino::NMSRotated-13", [np.concatenate([centre, np.zeros((1, 6, 1), np.float32)], -1), scores, *rest], {})
    plain = _evaluate("openvino::NonMaxSuppression-9", [centre, scores, *rest], {"box_encoding": "center"})
    for a, b in zip(rotated, plain):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.backend
@pytest.mark.parametrize("spec_id", ["openvino::MulticlassNonMaxSuppression-9", "openvino::MatrixNms-8", "openvino::NMSRotated-13"])
def test_examples_pass_on_openvino(spec_id):
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.suites import plan, verdicts

    spec = specs.load(spec_id)
    backend = get("openvino-native")
    cases = plan.example_cases(spec, oracle.expectation)
    got = [verdicts.judge(spec, case, backend.execute(spec, case))[0] for case in cases]
    assert got and all(v is Verdict.PASS for v in got), got


@pytest.mark.backend
@pytest.mark.parametrize("spec_id", ["openvino::MulticlassNonMaxSuppression-9", "openvino::MatrixNms-8", "openvino::NMSRotated-13"])
def test_generated_cases_run_on_openvino(spec_id):
    """Drawn cases run to a verdict. OpenVINO's known departures stay failures here as in the ci run
    (an IoU equal to MulticlassNms' threshold suppresses, selected_num unset when nothing is
    selected, bf16 thresholds of NMSRotated select nothing); nms_top_k 0 is left out, where MatrixNms
    dies of SIGSEGV in this process."""
    pytest.importorskip("openvino")
    from opconform.backends import get
    from opconform.generator import sampling
    from opconform.suites import verdicts

    spec = specs.load(spec_id)
    backend = get("openvino-native")
    cases = [c for c in sampling.generate(spec, 6, 11, kind="valid", expect=oracle.expectation)
             if spec.resolved_attributes(c.attributes).get("nms_top_k", -1) != 0]
    got = [verdicts.judge(spec, case, backend.execute(spec, case))[0] for case in cases]
    assert got and Verdict.PASS in got and Verdict.HARNESS_ERROR not in got, got
