"""Swish: x * sigmoid(alpha * x), alpha rounded to float32 as ONNX stores it. The formula as
written: where the sigmoid is 0 (x = -inf, alpha > 0) the product inf * 0 is NaN."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary

run = float_unary(lambda x, a: x * (1.0 / (1.0 + np.exp(-a["alpha"] * x))))
