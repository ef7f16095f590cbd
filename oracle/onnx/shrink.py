"""Shrink: x + bias for x < -lambd, x - bias for x > lambd, 0 otherwise."""
import numpy as np

from opconform.oracle.kernels.elementwise import numeric_unary

def _shrink(x, a):
    # integer inputs: computed in float64, then cast back to the input type (as the result type is T)
    x = x.astype(np.float64)
    lambd, bias = a["lambd"], a["bias"]
    return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0.0))


run = numeric_unary(_shrink)
