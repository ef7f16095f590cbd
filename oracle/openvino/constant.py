"""OpenVINO Constant-1: the tensor its content holds, read as element_type in shape (opconform's
attribute `value`). A layer of the document gives no content: its element type and shape are
what is checked, the elements standing in zeros."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    value = attributes.get("value")
    if value is None:
        dtype = dtypes.numpy_dtype(spec.outputs[0].type_map[attributes["element_type"]])
        return (np.zeros(tuple(attributes["shape"]), dtype=dtype),)
    return (np.array(value, copy=True),)
