"""Hook for openvino::ExperimentalDetectronGenerateProposalsSingleImage-6: four inputs whose shapes
one (channels, height, width) ties together are almost never drawn so independently, and random
anchors are rarely boxes. Here one map size is drawn, anchors are boxes inside the image, and the
scores mostly distinct (equal scores whose order matters are undefined, so cases with ties are
kept for a minority of draws)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft
from opconform.generator.families import default


def _as(d: Draft, i: int, x: np.ndarray) -> np.ndarray:
    return x.astype(dtypes.numpy_dtype(d.dtypes[i]))


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    channels, height, width = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    count = channels * height * width
    img_h, img_w = draw(st.integers(4, 32)), draw(st.integers(4, 32))
    d.inputs[0] = _as(d, 0, np.array([img_h, img_w, 1.0]))
    corners = np.array(draw(st.lists(st.integers(0, 24), min_size=2 * count, max_size=2 * count)), np.float64)
    sides = np.array(draw(st.lists(st.integers(0, 12), min_size=2 * count, max_size=2 * count)), np.float64)
    anchors = np.concatenate([corners.reshape(count, 2), (corners + sides).reshape(count, 2)], axis=1)
    d.inputs[1] = _as(d, 1, anchors)
    d.inputs[2] = default.input_array(draw, d, 2, shape=(4 * channels, height, width))
    if draw(st.integers(0, 3)) > 0:
        ranks = np.array(draw(st.permutations(range(count))), np.float64)
        d.inputs[3] = _as(d, 3, (ranks / 64.0).reshape(channels, height, width))  # distinct, exact in every float type
        d.notes.append("values:distinct_scores")
    else:
        d.inputs[3] = default.input_array(draw, d, 3, shape=(channels, height, width))
