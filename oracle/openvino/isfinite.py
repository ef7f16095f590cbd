"""OpenVINO IsFinite-10: true where the element is neither infinite nor NaN. ONNX has no IsFinite."""
import numpy as np

from opconform.oracle.kernels.elementwise import predicate_unary

run = predicate_unary(lambda x, attributes: np.isfinite(x))
