"""Asin: the element-wise np.arcsin of the input (see specs/onnx/Asin.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arcsin(x))
