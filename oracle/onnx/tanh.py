"""Tanh: the element-wise np.tanh of the input (see specs/onnx/Tanh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.tanh(x))
