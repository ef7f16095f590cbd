"""Hook for onnx::SpaceToDepth: H and W multiples of blocksize (random shapes rarely are)."""
from opconform.generator.hooks.onnx._blocks import blocked_input


def inputs(draw, d) -> None:
    blocked_input(draw, d, depth=False)


def _break_divisible(draw, d) -> None:
    d.attributes["blocksize"] = int(d.inputs[0].shape[2]) + 1


BREAK = {"spatial_divisible": _break_divisible}
