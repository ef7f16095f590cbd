"""Hook for onnx::RoiAlign: rois drawn as (num_rois, 4) with the corners of each RoI in order
(x1 <= x2, y1 <= y2), batch_indices one per RoI. The relation rois_ordered says it, but it
compares two elements of one row, and value repair probes one element at a time against
candidates laid out across the whole input, where such a test always holds."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    count = draw(st.integers(0, 4))
    rois = input_array(draw, d, d.port_index("rois"), shape=(count, 4))
    starts, ends = rois[:, :2], rois[:, 2:]
    d.set_input("rois", np.concatenate([np.minimum(starts, ends), np.maximum(starts, ends)], axis=1).astype(rois.dtype))
    d.set_input("batch_indices", input_array(draw, d, d.port_index("batch_indices"), shape=(count,)))
