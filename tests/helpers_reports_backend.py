"""Deliberately wrong backends for the pytest-plugin tests."""
from __future__ import annotations

import numpy as np

from opconform.backends.onnxruntime import OnnxRuntimeBackend


class RotatedOutputs(OnnxRuntimeBackend):
    """onnxruntime with every output of two or more elements rotated by one place: any case with
    two distinct output elements mismatches."""

    name = "rotated"

    def infer(self, handle, feeds, output_names):
        outs = super().infer(handle, feeds, output_names)
        return [np.roll(o, 1) if isinstance(o, np.ndarray) and o.size >= 2 else o for o in outs]

