"""ThresholdedRelu: x for x > alpha, 0 otherwise."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: np.where(x > a["alpha"], x, 0.0))
