"""BitShift: X shifted by Y bits, towards the most (LEFT) or least (RIGHT) significant bit.

Version 28 admits signed types: the right shift is arithmetic, and a shift amount that is
negative or at least the bit width gives what the sign extension alone gives (-1 for a right
shift of a negative X, 0 otherwise). Version 11 (unsigned only) leaves such shifts undefined."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary


def _shift(x, y, attributes, policies):
    bits = x.dtype.itemsize * 8
    in_range = (y >= 0) & (y < bits)
    amount = np.where(in_range, y, 0).astype(x.dtype)
    if attributes["direction"] == "LEFT":
        return np.where(in_range, np.left_shift(x, amount), 0)
    fill = np.where(x < 0, -1, 0) if x.dtype.kind == "i" else 0
    return np.where(in_range, np.right_shift(x, amount), fill)


run = binary(_shift)
