"""Atan: the element-wise np.arctan of the input (see specs/onnx/Atan.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arctan(x))
