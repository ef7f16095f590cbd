"""ONNX Flatten: (d_0 x ... x d_(axis-1), d_axis x ... x d_n)."""
import numpy as np


def run(spec, inputs, attributes, policies):
    data = inputs[0]
    axis = int(attributes.get("axis", 1))
    axis = axis + data.ndim if axis < 0 else axis
    outer = int(np.prod(data.shape[:axis], dtype=np.int64))
    inner = int(np.prod(data.shape[axis:], dtype=np.int64))
    return (data.reshape(outer, inner),)
