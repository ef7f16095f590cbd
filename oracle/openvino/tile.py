"""OpenVINO Tile-1: data repeated along each axis; the shorter of data's shape and repeats is padded
with leading 1s (numpy.tile's rule, which the text states). ONNX's Tile requires len(repeats) ==
rank(input), so its kernel is not reused."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, repeats = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
    return (np.tile(data, tuple(int(r) for r in repeats)) if repeats.size else data.copy(),)
