"""ONNX Tile: numpy.tile with one repeat count per axis (no broadcasting)."""
import numpy as np

from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    return (np.tile(inputs[0], tuple(layout.int_list(inputs[1]))),)
