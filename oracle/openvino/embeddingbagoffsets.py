"""OpenVINO EmbeddingBagOffsets-15: bags of `indices` cut at `offsets`, summed with weights or
averaged (oracle/openvino/embedding_bags.py). ONNX has no embedding bags."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.embedding_bags import default_of, offset_bags, reduce_bags, weight_of


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    table, indices, offsets = (np.asarray(a) for a in inputs[:3])
    weights = weight_of(inputs, 4)
    cuts = offset_bags(indices, offsets)
    return (reduce_bags(spec.id, table, [indices[c] for c in cuts], [None if weights is None else weights[c] for c in cuts],
                        attributes.get("reduction", "sum") == "mean", default_of(inputs, 3)),)
