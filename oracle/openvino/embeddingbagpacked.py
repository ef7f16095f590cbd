"""OpenVINO EmbeddingBagPacked-15: one bag per row of the 2-D indices, summed with weights or
averaged (oracle/openvino/embedding_bags.py). ONNX has no embedding bags."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.embedding_bags import reduce_bags, weight_of


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    table, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    weights = weight_of(inputs, 2)
    return (reduce_bags(spec.id, table, list(indices), [None] * len(indices) if weights is None else list(weights),
                        attributes.get("reduction", "sum") == "mean", None),)
