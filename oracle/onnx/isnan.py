"""IsNaN: true where x is NaN."""
import numpy as np

from opconform.oracle.kernels.elementwise import predicate_unary

run = predicate_unary(lambda x, attributes: np.isnan(x))
