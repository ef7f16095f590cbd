"""ONNX Squeeze: drop the listed size-1 axes, or every size-1 axis when axes is absent."""
import numpy as np

from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data = inputs[0]
    axes = inputs[1] if len(inputs) > 1 else None
    picked = None if axes is None else tuple(int(a) for a in layout.normalize_axes(layout.int_list(axes), data.ndim))
    return (np.squeeze(data, axis=picked),)
