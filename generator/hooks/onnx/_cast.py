"""Shared by the Cast and CastLike hooks: inputs whose conversion the text defines (numeric
literal strings; floats within an integer target's range), which generic values seldom are. A
row that pins the input's value class (`values:input`) gets that class instead (pins.input_values)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator import pins, values
from opconform.generator.draft import Draft
from opconform.generator.families.default import input_array, input_shape

NUMERIC_TEXT = ["0", "1", "-7", "100", "3.14", "-2.5", "1e-5", "1E8", "+INF", "INF", "-inf", "NaN", "nan", "100.5"]
INTEGER_TEXT = ["0", "1", "-7", "100", "42", "-128", "255"]


def convertible_input(draw, d: Draft, dst: str) -> None:
    """Input 0 redrawn so that casting it to `dst` is defined (sometimes left as drawn), or made
    to hold the row's value class."""
    if pins.pinned(d, f"values:{d.spec.inputs[0].name}") is not pins.UNPINNED:
        pins.input_values(draw, d, 0)
        return
    x = d.inputs[0]
    src = d.dtypes[0]
    if src == "string" and dst != "string":
        pool = INTEGER_TEXT if dtypes.get(dst).kind in ("int", "uint") else NUMERIC_TEXT
        flat = values.choose(draw, pool, x.size)
        d.inputs[0] = np.array(flat, dtype=object).reshape(x.shape)
        d.notes.append("values:numeric-text")
    elif dtypes.get(src).is_float and dtypes.get(dst).kind in ("int", "uint") and draw(st.booleans()):
        small = values.integers(draw, -100 if dtypes.get(dst).kind == "int" else 0,
                                100 if dtypes.get(dst).kind == "int" else 200, x.size)
        quarter = np.asarray(small, dtype=np.float64).reshape(x.shape) / 4  # fractions truncate
        d.inputs[0] = quarter.astype(dtypes.numpy_dtype(src))
        d.notes.append("values:in-range")


def default_inputs(draw, d: Draft) -> None:
    """Every input drawn; the converted input's values only when the row does not pin their class
    (convertible_input fills a pinned class into a shape drawn here: values drawn first would be
    thrown away, and drawing them is most of a conversion row's cost)."""
    pinned = pins.pinned(d, f"values:{d.spec.inputs[0].name}") is not pins.UNPINNED
    d.inputs = [None if not present else
                np.zeros(input_shape(draw, d, i), dtypes.numpy_dtype(d.dtypes[0])) if i == 0 and pinned else
                input_array(draw, d, i) for i, present in enumerate(d.present)]
