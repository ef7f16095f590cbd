"""ONNX BlackmanWindow-17: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N) for n < size (N = size, or size - 1 when symmetric)."""
from __future__ import annotations

from opconform.oracle.kernels.linalg import cosine_window


def run(spec, inputs, attributes, policies):
    return cosine_window(inputs, attributes, (0.42, 0.5, 0.08))
