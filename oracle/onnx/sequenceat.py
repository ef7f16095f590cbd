"""ONNX SequenceAt: the tensor at `position` (negative: from the back)."""
import numpy as np

from opconform.oracle.kernels import sequences


def run(spec, inputs, attributes, policies):
    seq = inputs[0]
    return (np.array(seq.items[sequences.position(inputs[1], len(seq.items))], copy=True),)
