"""ONNX Unsqueeze: insert size-1 axes at the listed positions of the output (the axes attribute
before version 13, the axes input from it on)."""
import numpy as np

from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data = inputs[0]
    axes = layout.int_list(attributes["axes"] if "axes" in attributes else inputs[1])
    out_rank = data.ndim + len(axes)
    return (np.expand_dims(data, tuple(int(a) for a in layout.normalize_axes(axes, out_rank))),)
