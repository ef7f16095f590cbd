"""Acos: the element-wise np.arccos of the input (see specs/onnx/Acos.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.arccos(x))
