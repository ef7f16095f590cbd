"""Sigmoid: 1 / (1 + exp(-x))."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: 1.0 / (1.0 + np.exp(-x)))
