"""openvino-native adapter for BinaryConvolution-1: its filters are u1, which opconform carries as
uint8 holding one 0 or 1 per element (it has no 1-bit element type); the builder packs them into an
OpenVINO u1 Constant, 8 elements a byte with the first in the high bit (OpenVINO's u1 layout: a
u1 Constant of the byte 0x01 converts to [0, 0, 0, 0, 0, 0, 0, 1]). Filters of another type (a
must-refuse case's) are passed as they are, for OpenVINO to judge."""
from __future__ import annotations

from typing import Any

import numpy as np

from opconform.generator.openvino_factories import ADAPTERS, call as _call, factory


def u1_constant(bits: np.ndarray) -> Any:
    import openvino as ov

    flat = np.asarray(bits).reshape(-1).astype(np.uint8) & 1
    tensor = ov.Tensor(ov.Type.u1, ov.Shape(list(bits.shape)))
    if flat.size:
        tensor.data.reshape(-1).view(np.uint8)[:] = np.packbits(flat)  # high bit first, the last byte zero-filled
    return ov.op.Constant(tensor)


def _binary_convolution(opset: Any, args: list, attributes: dict) -> Any:
    import openvino as ov

    args = list(args)
    filters = args[1]
    if filters.get_type_name() == "Constant" and filters.get_element_type() == ov.Type.u8:
        args[1] = u1_constant(filters.get_data())
    return _call(factory(opset, "BinaryConvolution"), args, attributes)


ADAPTERS["BinaryConvolution"] = _binary_convolution
