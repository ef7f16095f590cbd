"""Hook for onnx::Cast: defined conversions reached on purpose (see _cast.py)."""
from opconform import dtypes
from opconform.generator.hooks.onnx._cast import convertible_input, default_inputs


def inputs(draw, d) -> None:
    default_inputs(draw, d)
    convertible_input(draw, d, dtypes.BY_ONNX[int(d.resolved["to"])].name)
