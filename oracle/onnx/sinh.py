"""Sinh: the element-wise np.sinh of the input (see specs/onnx/Sinh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.sinh(x))
