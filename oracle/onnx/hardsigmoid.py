"""HardSigmoid: max(0, min(1, alpha * x + beta)); what min/max do with NaN is the open choice `nan`."""
import numpy as np

from opconform.oracle.kernels.elementwise import float32_attributes, wide


def run(spec, inputs, attributes, policies):
    x = np.asarray(inputs[0])
    a = float32_attributes(attributes)
    with np.errstate(all="ignore"):
        y = a["alpha"] * wide(x) + a["beta"]
        # "clamp": IEEE 754-2008 minNum/maxNum ignore the NaN operand, so min(1, NaN) = 1 and max(0, 1) = 1
        y = np.clip(y, 0.0, 1.0) if policies["nan"] == "propagate" else np.fmax(0.0, np.fmin(1.0, y))
        return (y.astype(x.dtype),)
