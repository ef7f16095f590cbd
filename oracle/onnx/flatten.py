"""ONNX Flatten: (d_0 x ... x d_(axis-1), d_axis x ... x d_n)."""
import numpy as np

from opconform.specs import normalize_axis


def run(spec, inputs, attributes, policies):
    data = inputs[0]
    axis = normalize_axis(attributes.get("axis", 1), data.ndim)
    outer = int(np.prod(data.shape[:axis], dtype=np.int64))
    inner = int(np.prod(data.shape[axis:], dtype=np.int64))
    return (data.reshape(outer, inner),)
