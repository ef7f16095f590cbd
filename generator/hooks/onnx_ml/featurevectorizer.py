"""Hook for onnx_ml::FeatureVectorizer: the relation language cannot compare each entry of a variadic input's shapes with a list (inputdimensions), so the inputs are drawn with one row count and inputdimensions set from them.

Now and then one size is one off (an undefined case: onnxruntime pads or truncates)."""
from __future__ import annotations

from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    rows = draw(st.integers(1, 3))
    sizes = []
    for i, x in enumerate(d.inputs):
        if x is None:
            continue
        cols = draw(st.integers(0, 3))
        one_d = x.ndim == 1 and rows == 1
        d.inputs[i] = default.input_array(draw, d, i, shape=(cols,) if one_d else (rows, cols))
        sizes.append(cols)
    # an inner value: Hypothesis favours a range's bounds, so "== 0" came up in about 4 drafts of 10
    if sizes and draw(st.integers(0, 7)) == 3:
        sizes[0] += 1
        d.notes.append("sizes:one_off")
    d.attributes["inputdimensions"] = sizes
