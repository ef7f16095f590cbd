"""OpenVINO Convert-1: ONNX's Cast (through the spec's mapping: destination_type spelt as Cast's
`to`), a float converted to an integer type rounded first where the policy float_to_integer says
nearest_even (ConvertLike's rule)."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion
from opconform.oracle.openvino import mapped
from opconform.oracle.openvino.convertlike import rounded_first


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    port = spec.outputs[0]
    target = dtypes.numpy_dtype(port.type_map[attributes["destination_type"]])
    return mapped.run(spec, [rounded_first(np.asarray(inputs[0]), target, policies)], attributes, policies)
