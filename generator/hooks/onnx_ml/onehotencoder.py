"""Hook for onnx_ml::OneHotEncoder: categories drawn from X's own values, so lookups hit (independent draws almost never match) and some miss.

The category list is a few of X's distinct values (numbers cast to integers as the operator
casts them) with one value X lacks, in a drawn order; the kind (strings or integers) follows X."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform.generator.draft import Draft
from opconform.generator.families import default


def inputs(draw, d: Draft) -> None:
    default.inputs(draw, d)
    x = d.input("X")
    if x is None:
        return
    d.attributes.pop("cats_strings", None)
    d.attributes.pop("cats_int64s", None)
    if x.dtype.kind in "OUST":
        present = sorted({str(v) for v in x.reshape(-1)})
        extra = "not_in_x"
    else:
        with np.errstate(all="ignore"):
            finite = x[np.isfinite(x)] if x.dtype.kind == "f" else x
            present = sorted({int(v) for v in np.trunc(finite.astype(np.float64)).reshape(-1) if abs(v) < 2 ** 62})
        extra = max(present, default=0) + 1
    kept = [v for v in present if draw(st.integers(0, 3)) > 0]  # most values found, some missed
    cats = kept + [extra]
    cats = [cats[i] for i in draw(st.permutations(range(len(cats))))]
    d.attributes["cats_strings" if x.dtype.kind in "OUST" else "cats_int64s"] = cats
    d.notes.append(f"categories:{len(kept)}of{len(present)}")
