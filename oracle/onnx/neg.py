"""Neg: -x; integers wrap like C."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

run = numeric_unary(lambda x, attributes: np.negative(x))
