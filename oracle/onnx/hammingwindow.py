"""ONNX HammingWindow-17: alpha - beta cos(2 pi n / N); alpha, beta by policy (25/46, 21/46 or 0.54, 0.46)."""
from __future__ import annotations

from opconform.oracle.kernels.linalg import cosine_window

_COEFFICIENTS = {"exact_25_46": (25 / 46, 21 / 46), "rounded_0_54": (0.54, 0.46)}


def run(spec, inputs, attributes, policies):
    return cosine_window(inputs, attributes, _COEFFICIENTS[policies["coefficients"]])
