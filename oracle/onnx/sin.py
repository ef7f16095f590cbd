"""Sin: the element-wise np.sin of the input (see specs/onnx/Sin.yaml)."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, attributes: np.sin(x))
