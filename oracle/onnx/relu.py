"""Relu: max(0, x); what max(0, NaN) is, the text leaves open (policy `nan`)."""
import numpy as np

from opconform.oracle.kernels.elementwise import is_float


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    with np.errstate(invalid="ignore"):  # NaN compares False (kept) and is settled by the policy
        y = np.where(x < 0, np.zeros_like(x), x)
        if is_float(x) and policies["nan"] == "zero":
            y = np.where(np.isnan(y), np.zeros_like(x), y)
    return (y,)
