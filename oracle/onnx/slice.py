"""ONNX Slice: see layout.slice_ for the clamping rules of the text."""
from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data, starts, ends, axes, steps = (list(inputs) + [None] * 5)[:5]
    return (layout.slice_(data, starts, ends, axes, steps),)
