"""Hook for onnx::DepthToSpace: C a multiple of blocksize**2 (random shapes rarely are)."""
from opconform.generator.hooks.onnx._blocks import blocked_input


def inputs(draw, d) -> None:
    blocked_input(draw, d, depth=True)


def _break_divisible(draw, d) -> None:
    d.attributes["blocksize"] = int(d.inputs[0].shape[1]) + 1


BREAK = {"depth_divisible": _break_divisible}
