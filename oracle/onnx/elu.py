"""Elu: alpha * (exp(x) - 1) for x < 0, x for x >= 0."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: np.where(x < 0, a["alpha"] * np.expm1(x), x))
