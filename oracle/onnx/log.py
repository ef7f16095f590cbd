"""Log: the element-wise np.log of the input (see specs/onnx/Log.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.log(x))
