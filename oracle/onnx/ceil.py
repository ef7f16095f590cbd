"""Ceil: the element-wise np.ceil of the input (see specs/onnx/Ceil.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.ceil(x))
