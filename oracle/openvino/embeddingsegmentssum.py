"""OpenVINO EmbeddingSegmentsSum-3 (TensorFlow's sparse.segment_sum): segment s sums the weighted
table rows of the indices whose segment id is s; an empty segment is the default row or zeros
(oracle/openvino/embedding_bags.py). ONNX has no segment sums."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.embedding_bags import default_of, reduce_bags, weight_of


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    table, indices, segment_ids = (np.asarray(a) for a in inputs[:3])
    count = int(np.asarray(inputs[3]).reshape(-1)[0])
    weights = weight_of(inputs, 5)
    members = [segment_ids == s for s in range(count)]
    return (reduce_bags(spec.id, table, [indices[m] for m in members], [None if weights is None else weights[m] for m in members],
                        False, default_of(inputs, 4)),)
