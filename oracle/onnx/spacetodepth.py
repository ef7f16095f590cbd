"""ONNX SpaceToDepth: the inverse of DepthToSpace; version 13 has no mode and is DCR."""
from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    return (layout.space_to_depth(inputs[0], int(attributes["blocksize"]), attributes.get("mode", "DCR")),)
