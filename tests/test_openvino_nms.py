"""OpenVINO NonMaxSuppression-9: hard NMS keeps what ONNX's NonMaxSuppression keeps (same IoU, same
greedy order on distinct scores), Soft-NMS decays the scores by exp(-0.5 iou^2 / sigma), and the
padded output size fills the rows past the selected ones with -1."""
from __future__ import annotations

import numpy as np
import pytest

from opconform import oracle, specs


@pytest.mark.parametrize("seed", range(4))
def test_hard_nms_selects_what_onnx_selects(seed):
    rng = np.random.default_rng(seed)
    corners = rng.uniform(0, 4, (2, 6, 2))
    boxes = np.concatenate([corners, corners + rng.uniform(0.5, 2, (2, 6, 2))], axis=-1).astype(np.float32)
    scores = rng.permutation(np.arange(24) / 32).reshape(2, 2, 6).astype(np.float32)  # distinct
    args = [boxes, scores, np.array(3, np.int64), np.array(0.3, np.float32), np.array(0.1, np.float32)]
    ours, kept_scores, count = oracle.evaluate(specs.load("openvino::NonMaxSuppression-9"), args, {"sort_result_descending": False})
    (theirs,) = oracle.evaluate(specs.load("onnx::NonMaxSuppression-11"),
                                [boxes, scores, np.array([3], np.int64), np.array([0.3], np.float32), np.array([0.1], np.float32)],
                                {"center_point_box": 0})
    assert ours.tolist() == theirs.tolist() and count.tolist() == [len(theirs)]
    assert kept_scores[:, 2].tolist() == [float(scores[b, c, k]) for b, c, k in ours]


def test_padded_output_size_fills_with_minus_one():
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], np.float32)
    scores = np.array([[[0.9, 0.1]]], np.float32)
    args = [boxes, scores, np.array(2, np.int32), np.array(0.5, np.float32), np.array(0.5, np.float32)]
    idx, sc, count = oracle.evaluate(specs.load("openvino::NonMaxSuppression-9"), args, {}, {"output_size": "padded"})
    assert idx.tolist() == [[0, 0, 0], [-1, -1, -1]] and count.tolist() == [1] and sc[1].tolist() == [-1, -1, -1]
