"""Div: A / B with multidirectional broadcasting.

For integers the text does not say how the quotient is rounded; the open choice
`integer_rounding` covers truncation toward zero (C, C++) and rounding toward -inf (Python)."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary


def _div(a, b, attributes, policies):
    if a.dtype.kind == "f":
        return a / b
    safe = np.where(b == 0, 1, b).astype(b.dtype)  # division by zero is undefined (a relation), never computed
    q = a // safe
    if policies["integer_rounding"] == "toward_zero":
        q = q + (((a % safe) != 0) & ((a < 0) != (safe < 0))).astype(q.dtype)
    return q


run = binary(_div)
