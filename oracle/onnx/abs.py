"""Abs: |x|; integers wrap like C (abs of the most negative value is itself)."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

run = numeric_unary(lambda x, attributes: np.abs(x))
