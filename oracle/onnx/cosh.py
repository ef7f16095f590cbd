"""Cosh: the element-wise np.cosh of the input (see specs/onnx/Cosh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.cosh(x))
