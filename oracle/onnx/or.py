"""Or: logical A or B with multidirectional broadcasting."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary

run = binary(lambda a, b, at, p: np.logical_or(a, b))
