"""Gelu: x * Phi(x), exactly with erf (approximate='none') or with the tanh formula (approximate='tanh')."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary, erf

def _gelu(x, a):
    if a["approximate"] == "tanh":
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


run = float_unary(_gelu)
