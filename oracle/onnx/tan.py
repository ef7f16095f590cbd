"""Tan: the element-wise np.tan of the input (see specs/onnx/Tan.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.tan(x))
