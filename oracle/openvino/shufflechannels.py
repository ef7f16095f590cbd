"""OpenVINO ShuffleChannels-1: the document's reshape to [before axis, group, C / group, after axis],
transpose of the two middle dimensions, reshape back."""
from __future__ import annotations

import math

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    group = int(attributes.get("group", 1))
    axis = int(attributes.get("axis", 1)) % x.ndim
    c = x.shape[axis]
    four = (math.prod(x.shape[:axis]), group, c // group, math.prod(x.shape[axis + 1:]))
    return (x.reshape(four).transpose(0, 2, 1, 3).reshape(x.shape),)
