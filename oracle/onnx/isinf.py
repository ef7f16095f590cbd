"""IsInf: true where x is +inf (if detect_positive) or -inf (if detect_negative)."""
import numpy as np

from opconform.oracle.kernels.elementwise import predicate_unary

run = predicate_unary(
    lambda x, a: (np.isposinf(x) & bool(a["detect_positive"])) | (np.isneginf(x) & bool(a["detect_negative"]))
)
