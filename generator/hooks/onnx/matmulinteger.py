"""Hook for onnx::MatMulInteger: MatMul's matching shapes, and zero points per tensor, per row of
a 2-D A or per column of a 2-D B."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array
from opconform.generator.hooks.onnx import matmul


def inputs(draw, d: Draft) -> None:
    matmul.inputs(draw, d)
    a, b = d.inputs[:2]
    per_row = [(a.shape[0],)] if a.ndim == 2 else []
    per_col = [(b.shape[1],)] if b.ndim == 2 else []
    d.inputs += [input_array(draw, d, 2, shape=draw(st.sampled_from([()] + per_row))) if d.present[2] else None,
                 input_array(draw, d, 3, shape=draw(st.sampled_from([()] + per_col))) if d.present[3] else None]


BREAK = {**matmul.BREAK, "B_type": lambda draw, d: d.set_input("B", d.input("B").astype(np.int32))}
