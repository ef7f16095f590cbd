"""ONNX DepthToSpace: the reshape-transpose-reshape the text spells out for DCR and CRD."""
from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    return (layout.depth_to_space(inputs[0], int(attributes["blocksize"]), attributes.get("mode", "DCR")),)
