"""Hook for openvino::ExperimentalDetectronROIFeatureExtractor-6: independent draws give pyramid
layers of different batches and channels, a pyramid_scales list of another length and boxes
without area, which the relations then reject; and boxes of a few pixels, which all map to level
0. Here the layers share batch 1 and one channel count, every layer gets a ratio (sometimes one
more, as the IR example has), and boxes are drawn with sizes spread over levels 0 to 2."""
from __future__ import annotations

import numpy as np
from hypothesis import assume, strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft
from opconform.generator.families import default

# sides whose sqrt(w * h) / 224 give levels 0, 1 and 2 (56 px and under is level 0 after the clamp)
_SIDES = st.one_of(st.integers(1, 24), st.integers(112, 200), st.integers(224, 255))


def _layer(draw, d: Draft, i: int, batch: int, channels: int) -> np.ndarray:
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return default.input_array(draw, d, i, shape=(batch, channels, h, w))


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    layers = len(d.inputs) - 1
    channels = draw(st.integers(1, 3))
    for i in range(1, layers + 1):
        d.inputs[i] = _layer(draw, d, i, 1, channels)
    extra = draw(st.booleans())
    scales = sorted(draw(st.lists(st.sampled_from([1, 2, 4, 8, 16, 32, 64]), min_size=layers + extra,
                                  max_size=layers + extra)))
    d.attributes["pyramid_scales"] = scales
    rois = d.inputs[0]
    if rois is None or rois.ndim != 2 or rois.shape[1] != 4:
        return
    count = rois.shape[0]
    corner = np.array(draw(st.lists(st.integers(0, 32), min_size=2 * count, max_size=2 * count)), np.float64).reshape(count, 2)
    sides = np.array(draw(st.lists(_SIDES, min_size=2 * count, max_size=2 * count)), np.float64).reshape(count, 2)
    boxes = np.concatenate([corner, corner + sides], axis=1)  # integers to 287 (bfloat16 rounds past 256, keeping x2 > x1)
    d.inputs[0] = boxes.astype(dtypes.numpy_dtype(d.dtypes[0]))
    d.notes.append("values:boxes_over_levels")


def break_layers_batch_one(draw, d: Draft) -> None:
    i = draw(st.integers(1, len(d.inputs) - 1))
    x = d.inputs[i]
    d.inputs[i] = default.input_array(draw, d, i, shape=(2,) + tuple(x.shape[1:]))


def break_layers_same_channels(draw, d: Draft) -> None:
    assume(len(d.inputs) > 2)
    i = draw(st.integers(2, len(d.inputs) - 1))
    x = d.inputs[i]
    d.inputs[i] = default.input_array(draw, d, i, shape=(1, x.shape[1] + 1) + tuple(x.shape[2:]))


def break_a_scale_per_layer(draw, d: Draft) -> None:
    layers = len(d.inputs) - 1
    assume(layers > 1)
    d.attributes["pyramid_scales"] = list(d.resolved["pyramid_scales"])[:layers - 1]


BREAK = {"layers_batch_one": break_layers_batch_one, "layers_same_channels": break_layers_same_channels,
         "a_scale_per_layer": break_a_scale_per_layer}
