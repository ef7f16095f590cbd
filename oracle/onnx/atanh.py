"""Atanh: the element-wise np.arctanh of the input (see specs/onnx/Atanh.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arctanh(x))
