"""HardSwish: x * max(0, min(1, alpha * x + beta)) with alpha = 1/6, beta = 0.5."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: x * np.clip(x / 6.0 + 0.5, 0.0, 1.0))
