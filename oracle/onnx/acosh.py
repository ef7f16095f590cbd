"""Acosh: the element-wise np.arccosh of the input (see specs/onnx/Acosh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arccosh(x))
