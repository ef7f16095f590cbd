"""ONNX Transpose: output axis i is input axis perm[i]; no perm reverses the axes."""
import numpy as np


def run(spec, inputs, attributes, policies):
    perm = attributes.get("perm")
    return (np.transpose(inputs[0], None if perm is None else tuple(int(p) for p in perm)),)
