"""OpenVINO MaxPool-14: the maximum of each window (oracle/openvino/pool_windows.py geometry, the
kernel of ONNX's MaxPool: padding -inf, never selected) and its index in the input flattened from
dimension `axis` on (axis 0: the whole tensor, ONNX's Indices; axis 2: the spatial plane).
uint64 is pooled through an order-preserving map onto int64 (the kernel compares in int64)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels import pool
from opconform.oracle.openvino import pool_windows
from opconform.specs import normalize_axis

_TYPES = {"i64": np.int64, "i32": np.int32}
_SIGN = np.uint64(1 << 63)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    win = pool_windows.window(x.shape[2:], attributes)
    mapped = (x ^ _SIGN).view(np.int64) if x.dtype == np.uint64 else x
    y, flat = pool.maximum(spec.id, mapped, win, policies["nan"], policies["ties"])
    if x.dtype == np.uint64:
        y = y.view(np.uint64) ^ _SIGN
    axis = normalize_axis(int(attributes.get("axis", 0)), x.ndim)
    bound = int(np.prod(x.shape[axis:], dtype=np.int64))
    index = flat % bound if bound else flat
    return y, index.astype(_TYPES[attributes.get("index_element_type", "i64")])
