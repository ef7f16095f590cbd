"""OpenVINO Broadcast-3: numpy (data onto target_shape, one way), bidirectional (the broadcast of
both shapes, as numpy.array(data) * numpy.ones(target_shape)), explicit (data's axes placed at the
output axes axes_mapping names, replicated along the others)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    target = tuple(int(v) for v in np.asarray(inputs[1]).reshape(-1))
    mode = attributes.get("mode", "numpy")
    if mode == "bidirectional":
        target = np.broadcast_shapes(data.shape, target)
    elif mode == "explicit":
        placed = [1] * len(target)
        for k, axis in enumerate(np.asarray(inputs[2]).reshape(-1)):
            placed[int(axis)] = data.shape[k]
        data = data.reshape(placed)
    return (np.array(np.broadcast_to(data, target), copy=True),)
