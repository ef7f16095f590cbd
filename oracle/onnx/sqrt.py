"""Sqrt: the element-wise np.sqrt of the input (see specs/onnx/Sqrt.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.sqrt(x))
