"""OpenVINO CTCLoss-4: the loss is -ln of the summed probability of every path that decodes to the
processed target, checked by enumerating all paths of short sequences (the document's scheme,
steps 1 to 3), for every combination of the three flags."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from opconform import oracle, specs


def _brute_force(logits, target, blank, merge):
    p = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        decoded = [k for k, _ in itertools.groupby(path)] if merge else list(path)
        if [c for c in decoded if c != blank] == target:
            total += math.prod(p[t, c] for t, c in enumerate(path))
    return -math.log(total) if total else math.inf


def _process(labels, collapse, unique):
    g = [k for k, _ in itertools.groupby(labels)] if collapse else list(labels)
    return list(dict.fromkeys(g)) if unique else g


@pytest.mark.parametrize("merge, collapse, unique", list(itertools.product([True, False], repeat=3)))
def test_loss_sums_the_aligned_paths(merge, collapse, unique):
    rng = np.random.default_rng(int(merge) * 4 + int(collapse) * 2 + int(unique))
    n, t, c = 3, 4, 3
    logits = rng.standard_normal((n, t, c))
    labels = np.array([[0, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 0]])
    label_length, logit_length = np.array([3, 2, 2]), np.array([4, 3, 4])
    blank = np.array(2)
    (got,) = oracle.evaluate(specs.load("openvino::CTCLoss-4"), [logits, logit_length, labels, label_length, blank],
                             {"ctc_merge_repeated": merge, "preprocess_collapse_repeated": collapse, "unique": unique})
    for i in range(n):
        target = _process(labels[i, :label_length[i]].tolist(), collapse, unique)
        want = _brute_force(logits[i, :logit_length[i]], target, 2, merge)
        assert (math.isinf(want) and math.isinf(got[i])) or math.isclose(got[i], want, rel_tol=1e-10)
