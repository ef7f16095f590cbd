"""Div: A / B with multidirectional broadcasting; integer quotients truncate toward zero (the text says so)."""
import numpy as np

from opconform.oracle.kernels.elementwise import binary


def _div(a, b, attributes, policies):
    if a.dtype.kind == "f":
        return a / b
    safe = np.where(b == 0, 1, b).astype(b.dtype)  # division by zero is undefined (a relation), never computed
    q = a // safe
    # floor division rounds toward -inf; step back toward zero where the exact quotient was negative and inexact
    return q + (((a % safe) != 0) & ((a < 0) != (safe < 0))).astype(q.dtype)


run = binary(_div)
