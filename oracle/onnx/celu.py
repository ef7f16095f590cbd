"""Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: np.maximum(0.0, x) + np.minimum(0.0, a["alpha"] * np.expm1(x / a["alpha"])))
