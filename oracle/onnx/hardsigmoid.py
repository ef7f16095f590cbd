"""HardSigmoid: max(0, min(1, alpha * x + beta))."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: np.clip(a["alpha"] * x + a["beta"], 0.0, 1.0))
