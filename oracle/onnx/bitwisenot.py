"""BitwiseNot: the bitwise complement of an integer tensor."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

run = numeric_unary(lambda x, attributes: np.invert(x))
