"""Exp: the element-wise np.exp of the input (see specs/onnx/Exp.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.exp(x))
