"""Selu: gamma * (alpha * exp(x) - alpha) for x <= 0, gamma * x for x > 0."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: a["gamma"] * np.where(x <= 0, a["alpha"] * np.expm1(x), x))
