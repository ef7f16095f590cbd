"""OpenVINO CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6 and ExperimentalDetectronTopKROIs-6: the two
decoders agree on the same logits (a mask of leading ones is a length), decoding follows the
text's two steps, and the top ROIs come in descending order of probability."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from opconform import oracle, specs
from opconform.model import RelationBroken


def _two_steps(path, blank, merge):
    """The document's two steps: merge consecutive duplicates (if asked), then drop the blanks."""
    merged = [k for k, _ in itertools.groupby(path)] if merge else list(path)
    return [c for c in merged if c != blank]


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_both_decoders_take_the_two_steps(seed, merge):
    rng = np.random.default_rng(seed)
    n, t, c = 3, 6, 4
    logits = rng.standard_normal((n, t, c)).astype(np.float32)
    lengths = rng.integers(0, t + 1, n)
    mask = (np.arange(t)[:, None] < lengths[None, :]).astype(np.float32)  # [T, N]
    classes, counts = oracle.evaluate(specs.load("openvino::CTCGreedyDecoderSeqLen-6"), [logits, lengths.astype(np.int32), None],
                                      {"merge_repeated": merge})
    (masked,) = oracle.evaluate(specs.load("openvino::CTCGreedyDecoder-1"), [np.swapaxes(logits, 0, 1), mask],
                                {"ctc_merge_repeated": merge})
    assert np.array_equal(masked.reshape(n, t), classes.astype(np.float32))
    for b in range(n):
        want = _two_steps(np.argmax(logits[b, :lengths[b]], axis=-1).tolist(), c - 1, merge)
        assert counts[b] == len(want) and classes[b, :len(want)].tolist() == want and np.all(classes[b, len(want):] == -1)


def test_top_rois_descend_and_equal_probabilities_are_open():
    rois = np.arange(24, dtype=np.float32).reshape(6, 4)
    probs = np.array([0.3, 0.9, 0.1, 0.5, 0.7, 0.2], np.float32)
    spec = specs.load("openvino::ExperimentalDetectronTopKROIs-6")
    (top,) = oracle.evaluate(spec, [rois, probs], {"max_rois": 4})
    assert top[:, 0].tolist() == [4, 16, 12, 0]  # ROIs 1, 4, 3, 0
    with pytest.raises(RelationBroken, match="ties_unordered"):
        oracle.evaluate(spec, [rois, np.array([0.3, 0.9, 0.1, 0.3, 0.7, 0.2], np.float32)], {"max_rois": 3})
