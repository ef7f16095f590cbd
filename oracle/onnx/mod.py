"""Mod: the remainder of A / B; its sign follows the divisor (fmod=0, integers) or the dividend (fmod=1)."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary

run = binary(lambda a, b, at, p: np.fmod(a, b) if at["fmod"] else np.mod(a, b))
