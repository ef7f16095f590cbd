"""Sum: element-wise sum of every input, with multidirectional broadcasting."""
import numpy as np

from opconform.oracle.kernels.elementwise import fold, variadic

run = variadic(lambda arrays, p: fold(np.add)(arrays))
