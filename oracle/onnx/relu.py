"""Relu: max(0, x)."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

run = numeric_unary(lambda x, attributes: np.where(x < 0, np.zeros_like(x), x))
