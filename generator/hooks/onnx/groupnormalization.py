"""Hook for onnx::GroupNormalization: num_groups a divisor of C, scale and bias of size C."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator import shapes
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import break_per_channel


def inputs(draw, d: Draft) -> None:
    x = input_array(draw, d, 0, shape=draw(shapes.shapes(draw(shapes.ranks(d.port("X"), d.profile)), d.profile, min_side=1)))
    c = x.shape[1]
    d.attributes["num_groups"] = draw(st.sampled_from([g for g in range(1, c + 1) if c % g == 0]))
    d.inputs = [x, input_array(draw, d, 1, shape=(c,)), input_array(draw, d, 2, shape=(c,))]


def break_groups_divide_channels(draw, d: Draft) -> None:
    c = d.input("X").shape[1]
    d.attributes["num_groups"] = draw(st.sampled_from([g for g in range(2, c + 2) if c % g])) if c > 1 else c + 1


BREAK = {
    "groups_divide_channels": break_groups_divide_channels,
    "scale_per_channel": break_per_channel("scale"),
    "bias_per_channel": break_per_channel("bias"),
}
