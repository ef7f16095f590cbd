"""Deliberately wrong backends for the pytest-plugin tests."""
from __future__ import annotations

import numpy as np

from opconform.backends.onnxruntime import OnnxRuntimeBackend


class OffByOne(OnnxRuntimeBackend):
    """onnxruntime with one added to every element of every output (strings get a suffix, booleans
    flip): any case with a non-empty output mismatches, small ones included."""

    name = "off-by-one"

    def infer(self, handle, feeds, output_names):
        return [_off(o) for o in super().infer(handle, feeds, output_names)]


def _off(o):
    if not isinstance(o, np.ndarray) or o.size == 0:
        return o
    if o.dtype == object:
        return np.array([f"{x}x" for x in o.ravel()], dtype=object).reshape(o.shape)
    if o.dtype == np.bool_:
        return ~o
    with np.errstate(all="ignore"):
        return (o + np.ones((), o.dtype)).astype(o.dtype)
