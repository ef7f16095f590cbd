"""OpenVINO ReadValue-3: the variable's value when it holds one (the state input `variable`), else
init_value, which declares it."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    held = inputs[1] if len(inputs) > 1 else None
    return (np.array(inputs[0] if held is None else held, copy=True),)
