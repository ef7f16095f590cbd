"""Floor: the element-wise np.floor of the input (see specs/onnx/Floor.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.floor(x))
