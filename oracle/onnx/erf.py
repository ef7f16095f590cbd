"""Erf: the error function."""
import numpy as np

from opconform.oracle.kernels.elementwise import float_unary, erf

run = float_unary(lambda x, a: erf(x))
