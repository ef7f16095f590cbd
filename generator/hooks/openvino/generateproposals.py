"""Hook for OpenVINO GenerateProposals-9: anchors, deltas and scores that make proposals worth judging.

Why a hook: the four inputs share num_batches, height, width and number_of_anchors, and free draws
leave anchors inside out, scores tied and boxes clipped to nothing; here each point's anchors are
boxes around it of a few sizes, the scores distinct, the image a little larger than the map.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft


def inputs(draw, d: Draft) -> None:
    batch, height, width, count = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3)),
                                   draw(st.integers(1, 3)))
    dt = dtypes.numpy_dtype(d.dtypes[d.port_index("scores")])
    stride = draw(st.sampled_from([2, 4, 8]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    centres = np.stack(np.meshgrid((np.arange(width) + 0.5) * stride, (np.arange(height) + 0.5) * stride), -1)
    half = rng.choice([1.0, 2.0, 4.0, 8.0], size=(height, width, count, 2)) * stride / 4
    anchors = np.concatenate([centres[:, :, None, :] - half, centres[:, :, None, :] + half], -1)
    d.set_input("anchors", anchors.astype(dt))
    d.set_input("boxesdeltas", rng.uniform(-0.5, 0.5, (batch, 4 * count, height, width)).astype(dt))
    total = batch * count * height * width
    d.set_input("scores", (rng.permutation(total) / total).reshape(batch, count, height, width).astype(dt))
    side = [stride * height * draw(st.sampled_from([1.0, 1.5])), stride * width * draw(st.sampled_from([1.0, 1.5]))]
    scales = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=1, max_size=2))
    d.set_input("im_info", np.tile(np.asarray(side + scales, np.float64), (batch, 1)).astype(dt))
