"""OpenVINO NotEqual-1: a != b with the spec's broadcasting (NaN is not equal to anything). ONNX has no NotEqual."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary

run = binary(lambda a, b, at, p: a != b, out_dtype=np.bool_)
