"""Min: element-wise minimum of every input; NaN handling is the open choice `nan`."""
import numpy as np

from opconform.oracle.kernels.elementwise import fold, variadic

run = variadic(lambda arrays, p: fold(np.minimum if p["nan"] == "propagate" else np.fmin)(arrays))
