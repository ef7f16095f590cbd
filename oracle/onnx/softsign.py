"""Softsign: x / (1 + |x|)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: x / (1.0 + np.abs(x)))
