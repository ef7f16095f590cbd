"""ONNX Concat: join the inputs along axis."""
import numpy as np


def run(spec, inputs, attributes, policies):
    return (np.concatenate(list(inputs), axis=int(attributes["axis"])),)
