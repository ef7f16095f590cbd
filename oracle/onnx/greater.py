"""Greater: A > B element-wise, with multidirectional broadcasting."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary

run = binary(lambda a, b, at, p: a > b, out_dtype=np.bool_)
