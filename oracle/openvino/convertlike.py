"""OpenVINO ConvertLike-1: ONNX's CastLike (through the spec's mapping), a float converted to an
integer type rounded first where the policy float_to_integer says nearest_even (the text does not
say whether 3.7 becomes 3 or 4)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import is_float
from opconform.oracle.openvino import mapped


def rounded_first(data: np.ndarray, target: np.dtype, policies: dict) -> np.ndarray:
    """The float data rounded to integral values where the policy says the conversion to the
    integer `target` rounds (nearest_even); unchanged otherwise (ONNX's Cast then truncates)."""
    if policies.get("float_to_integer") == "nearest_even" and is_float(data) and np.dtype(target).kind in "iu":
        return np.rint(data.astype(np.float64)).astype(data.dtype)  # exact: an integral float of the same type
    return data


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, like = np.asarray(inputs[0]), np.asarray(inputs[1])
    return mapped.run(spec, [rounded_first(data, like.dtype, policies), like], attributes, policies)
