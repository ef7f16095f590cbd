"""Pow: X ** Y with multidirectional broadcasting; the result has X's element type.

Float bases are computed in float64 and rounded once. An integer base with a float exponent is
computed in float64 and converted to X's type (truncating, as a C cast does). Integer base and
integer exponent stay exact in 64-bit integers (negative exponents are undefined: a relation)."""
import numpy as np

from opconform.oracle.kernels.elementwise import is_float, wide


def run(spec, inputs, attributes, policies):
    x, y = np.asarray(inputs[0]), np.asarray(inputs[1])
    with np.errstate(all="ignore"):
        if is_float(x) or is_float(y):
            out = np.power(wide(x), wide(y))
        else:
            wide_int = np.uint64 if x.dtype.kind == "u" and y.dtype.kind == "u" else np.int64
            out = np.power(x.astype(wide_int), np.maximum(y, 0).astype(wide_int))
        return (out.astype(x.dtype),)
