"""NonMaxSuppression: the oracle against onnx.reference on drawn boxes (where the two readings of
a score equal to the threshold cannot part), the order of equal scores as a policy, and the
text's "score less than score_threshold are removed"."""
from __future__ import annotations

import numpy as np
import pytest

from helpers_image import reference_run
from opconform import oracle, specs


@pytest.mark.parametrize("center", [0, 1])
def test_agrees_with_onnx_reference(center):
    rng = np.random.default_rng(center)
    for k in range(20):
        boxes = (rng.integers(0, 16, size=(2, 5, 4)) / 4).astype(np.float32)
        scores = (rng.integers(0, 64, size=(2, 3, 5)) / 64 + 1 / 128).astype(np.float32)  # never on the threshold
        extra = [np.array([k % 4], dtype=np.int64), np.array([(k % 9) / 8], dtype=np.float32),
                 np.array([(k % 5) / 5], dtype=np.float32)]
        want = reference_run("NonMaxSuppression", 11, [boxes, scores] + extra, {"center_point_box": center})[0]
        got = oracle.evaluate("onnx::NonMaxSuppression-11", [boxes, scores] + extra, {"center_point_box": center})[0]
        assert got.tolist() == want.tolist(), k


def test_equal_scores_are_ordered_by_a_policy():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1]]], dtype=np.float32)  # identical: one suppresses the other
    scores = np.array([[[0.5, 0.5]]], dtype=np.float32)
    exp = oracle.expectation(specs.load("onnx::NonMaxSuppression-11"), [boxes, scores, np.array([5]), None, None], {})
    by = {a.policies["tie_order"]: a.outputs[0].tolist() for a in exp.alternatives}
    assert by == {"lower_index_first": [[0, 0, 0]], "higher_index_first": [[0, 0, 1]]}


def test_a_score_equal_to_the_threshold_stays():
    boxes = np.array([[[0, 0, 1, 1], [0, 2, 1, 3]]], dtype=np.float32)
    scores = np.array([[[0.5, 0.25]]], dtype=np.float32)
    got = oracle.evaluate("onnx::NonMaxSuppression-11", [boxes, scores, np.array([5]), np.array([0.5], dtype=np.float32),
                                                         np.array([0.25], dtype=np.float32)], {})[0]
    assert got.tolist() == [[0, 0, 0], [0, 0, 1]]
