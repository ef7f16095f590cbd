"""PRelu: slope * X for X < 0, X otherwise; slope broadcasts to X's shape."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary

run = binary(lambda x, slope, at, p: np.where(x < 0, slope * x, x))
