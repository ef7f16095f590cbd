"""Hook for onnx::ReverseSequence: distinct batch and time axes, and one length per batch entry
within [0, time steps]."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx._indexing import ints


def inputs(draw, d: Draft) -> None:
    if d.resolved["batch_axis"] == d.resolved["time_axis"]:
        d.attributes["batch_axis"] = 1 - d.resolved["time_axis"]
    x = input_array(draw, d, 0)
    steps = x.shape[d.resolved["time_axis"]]
    d.inputs = [x, ints(draw, (x.shape[d.resolved["batch_axis"]],), 0, steps)]


def break_lens_per_batch(draw, d: Draft) -> None:
    lens = d.input("sequence_lens")
    d.set_input("sequence_lens", np.concatenate([lens, np.zeros(draw(st.integers(1, 2)), np.int64)]))


def break_axes_differ(draw, d: Draft) -> None:
    """Both axes the same allowed value (generic mutation rarely lands on exactly that)."""
    axis = draw(st.sampled_from([0, 1]))
    d.attributes["batch_axis"] = d.attributes["time_axis"] = axis


BREAK = {"axes_differ": break_axes_differ, "lens_per_batch": break_lens_per_batch}
