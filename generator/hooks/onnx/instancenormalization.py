"""Hook for onnx::InstanceNormalization: scale and B of size C (X's axis 1), non-empty instances."""
from __future__ import annotations

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import break_per_channel


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0, shape=draw(shapes.shapes(draw(shapes.ranks(d.port("input"), d.profile)), d.profile, min_side=1)))
    c = x.shape[1]
    d.inputs = [x, input_array(draw, d, 1, shape=(c,)), input_array(draw, d, 2, shape=(c,))]


BREAK = {"scale_per_channel": break_per_channel("scale"), "bias_per_channel": break_per_channel("B")}
