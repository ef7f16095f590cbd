"""ONNX CastLike: Cast to the element type of target_type (its values are not used)."""
from opconform import dtypes
from opconform.oracle.kernels import cast


def run(spec, inputs, attributes, policies):
    to = dtypes.name_of(inputs[1].dtype)
    return (cast.cast(inputs[0], to, saturate=bool(attributes.get("saturate", 1)),
                      round_mode=attributes.get("round_mode", "up"), policies=policies),)
