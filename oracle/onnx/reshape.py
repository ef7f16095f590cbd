"""ONNX Reshape: 0 copies an input dim unless allowzero, -1 takes the remaining size."""
from opconform.oracle.kernels import layout


def run(spec, inputs, attributes, policies):
    data, shape = inputs[0], inputs[1]
    return (data.reshape(layout.reshape_target(data.shape, shape, bool(attributes.get("allowzero", 0)))),)
