"""Hook for onnx::Clip: min and max, when present, are scalars (tensors of empty shape)."""
from __future__ import annotations

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array


def inputs(draw, d: Draft) -> None:
    d.inputs = [input_array(draw, d, 0)] + [input_array(draw, d, i, shape=()) if d.present[i] else None for i in (1, 2)]
