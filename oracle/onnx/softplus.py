"""Softplus: ln(exp(x) + 1), computed as logaddexp(0, x) so large x does not overflow."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: np.logaddexp(0.0, x))
