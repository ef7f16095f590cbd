"""Hook for onnx::CastLike: defined conversions reached on purpose (see _cast.py)."""
from opconform.generator.hooks.onnx._cast import convertible_input, default_inputs


def inputs(draw, d) -> None:
    default_inputs(draw, d)
    convertible_input(draw, d, d.dtypes[1])
