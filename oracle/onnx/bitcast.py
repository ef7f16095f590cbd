"""ONNX BitCast: the input's bits read as the element type `to` names, of the same bit width
(little endian, as the text requires and NumPy's views are on the machines opconform runs on).

The sub-byte types (uint4, int4, float4e2m1, uint2, int2) are one element per byte in ml_dtypes,
their bits in the low part of it (int4 -1 is 0x0F): those go through the byte, masked. A byte
other than 0 and 1 read as a bool has no bool value: the oracle-side relation
bool_bytes_are_bools (undefined), as the spec says for integer inputs."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import RelationBroken

_SUB_BYTE_BITS = {"uint4": 4, "int4": 4, "float4e2m1": 4, "uint2": 2, "int2": 2}


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    to = dtypes.BY_ONNX[int(attributes["to"])].name
    target = dtypes.numpy_dtype(to)
    bits = _SUB_BYTE_BITS.get(to)
    if bits is not None:
        return ((x.view(np.uint8) & np.uint8((1 << bits) - 1)).view(target),)
    if to == "bool" and np.any(x.view(np.uint8) > 1):
        raise RelationBroken(spec.id, "bool_bytes_are_bools", "undefined",
                             "a byte other than 0 and 1 read as a bool: the text gives it no value")
    return (x.view(target),)
