"""OpenVINO Assign-3: its output is new_value, and new_value is what the variable holds after the
inference (the state output `variable`)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    return (np.array(inputs[0], copy=True), np.array(inputs[0], copy=True))
