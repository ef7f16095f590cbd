"""Hook for onnx::InstanceNormalization: scale and B of size C (X's axis 1), non-empty instances."""
from __future__ import annotations

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0, shape=draw(shapes.shapes(draw(shapes.ranks(d.port("input"), d.profile)), d.profile, min_side=1)))
    c = x.shape[1]
    d.inputs = [x, input_array(draw, d, 1, shape=(c,)), input_array(draw, d, 2, shape=(c,))]


def break_per_channel(name: str):
    """A breaker giving the named 1-D input C + 1 entries instead of C."""
    def breaker(draw, d: Draft) -> None:
        i = d.port_index(name)
        d.inputs[i] = input_array(draw, d, i, shape=(d.inputs[0].shape[1] + 1,))
    return breaker


BREAK = {"scale_per_channel": break_per_channel("scale"), "bias_per_channel": break_per_channel("B")}
