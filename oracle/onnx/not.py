"""Not: logical negation of a bool tensor."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

run = numeric_unary(lambda x, attributes: np.logical_not(x))
