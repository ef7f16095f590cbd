"""Cos: the element-wise np.cos of the input (see specs/onnx/Cos.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.cos(x))
