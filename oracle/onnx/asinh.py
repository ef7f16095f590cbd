"""Asinh: the element-wise np.arcsinh of the input (see specs/onnx/Asinh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arcsinh(x))
