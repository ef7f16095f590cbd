"""Hook for OpenVINO Proposal-4: anchors and maps that make proposals worth judging.

Why a hook: the maps' channels are 2 * K and 4 * K with K = len(ratio) * len(scale), and free draws
of the float lists and of image_shape (whose third and fourth elements scale min_size) leave
almost every box filtered out or every score tied; here the ratios and scales are Faster R-CNN's
kind, the scores distinct, the image a few strides wide, its scales near 1 and min_size below most
anchors.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft

_RATIOS = [0.5, 1.0, 2.0]
_SCALES = [0.5, 1.0, 2.0, 4.0]


def inputs(draw, d: Draft) -> None:
    ratio = draw(st.lists(st.sampled_from(_RATIOS), min_size=1, max_size=2, unique=True))
    scale = draw(st.lists(st.sampled_from(_SCALES), min_size=1, max_size=2, unique=True))
    d.attributes.update(ratio=ratio, scale=scale)
    k = len(ratio) * len(scale)
    batch, height, width = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dt = dtypes.numpy_dtype(d.dtypes[d.port_index("class_probs")])
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    scores = rng.permutation(batch * 2 * k * height * width) / (batch * 2 * k * height * width)  # distinct in [0, 1)
    d.set_input("class_probs", scores.reshape(batch, 2 * k, height, width).astype(dt))
    d.set_input("bbox_deltas", rng.uniform(-0.5, 0.5, (batch, 4 * k, height, width)).astype(dt))
    stride = int(d.attributes.get("feat_stride", 1))
    size = [draw(st.integers(1, 4)) * stride * max(height, width), draw(st.integers(1, 4)) * stride * max(height, width)]
    scales = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=1, max_size=2))
    # most boxes above min_size: under the zero_score reading the filtered ones tie at score 0
    base = int(d.attributes.get("base_size", 1))
    d.attributes["min_size"] = draw(st.integers(1, max(1, int(base * min(scale) / max(scales) / 2))))
    d.set_input("image_shape", np.asarray(size + scales, dtype=np.float64).astype(dt))
