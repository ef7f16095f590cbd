"""OpenVINO Col2Im-15: ONNX Col2Im-18's kernel through the mapping; an unbatched 2D input is run
as a batch of one and the batch dimension dropped again (ONNX takes 3-D input only)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data = np.asarray(inputs[0])
    if data.ndim == 3:
        return mapped.run(spec, inputs, attributes, policies)
    (out,) = mapped.run(spec, [data[None]] + list(inputs[1:]), attributes, policies)
    return (out[0],)
