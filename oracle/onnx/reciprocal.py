"""Reciprocal: the element-wise np.reciprocal of the input (see specs/onnx/Reciprocal.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.reciprocal(x))
