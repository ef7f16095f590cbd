"""ONNX MatMul: numpy.matmul (broadcast stacks; 1-D operands promoted and the added axis removed).

Policy intermediate_precision (the text names no type for the products and sums): `wide` --
float64, rounded once; `input_type` -- every product and addition rounded to the operands' type,
summed over k (oracle/kernels/linalg.py sum_in_type). Integers are exact; where some order
of the sums leaves the type's range the outcome is undefined (oracle-side relation
integer_overflow: the text does not define integer overflow)."""
from __future__ import annotations

import numpy as np

from opconform.oracle.kernels import linalg, precision


def run(spec, inputs, attributes, policies):
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    if not precision.is_float(a):
        precision.refuse_overflow(spec.id, linalg.matmul_overflow(a, b, a.dtype), "a sum of products of the integer operands")
        with np.errstate(all="ignore"):  # in range in every order: exact in the operands' type
            return (np.matmul(a, b),)
    if precision.narrow_policy(policies):
        precision.refuse_order_dependent_products(spec.id, a, b, policies)
        return (linalg.matmul_narrow(a, b),)
    return (linalg.narrow(linalg.matmul(a, b), a.dtype),)
