"""ONNX Cast: see oracle/kernels/cast.py for the conversion rules of the text."""
from opconform import dtypes
from opconform.oracle.kernels import cast


def run(spec, inputs, attributes, policies):
    to = dtypes.BY_ONNX[int(attributes["to"])].name
    return (cast.cast(inputs[0], to, saturate=bool(attributes.get("saturate", 1)),
                      round_mode=attributes.get("round_mode", "up"), policies=policies),)
