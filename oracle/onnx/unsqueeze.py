"""ONNX Unsqueeze: insert size-1 axes at the listed positions of the output."""
import numpy as np

from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data, axes = inputs[0], layout.int_list(inputs[1])
    out_rank = data.ndim + len(axes)
    return (np.expand_dims(data, tuple(int(a) for a in layout.normalize_axes(axes, out_rank))),)
