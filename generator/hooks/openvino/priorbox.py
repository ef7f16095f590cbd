"""Hook for OpenVINO PriorBox-8: attribute sets that draw priors.

Why a hook: free draws of the six float lists leave most cases with no prior at all (no min_size
nor fixed_size) or with lists the relations leave undefined (a density per fixed_size, whole
pixels, max_size beside min_size); here a case is Caffe's (min sizes, max sizes, aspect ratios),
a fixed-size lattice, or the free draw as it came, over a small grid and image.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opconform import dtypes
from opconform.generator.draft import Draft

_EMPTIED = ("min_size", "max_size", "aspect_ratio", "fixed_size", "density", "fixed_ratio")


def _caffe(draw, a: dict) -> None:
    a["min_size"] = draw(st.lists(st.sampled_from([2.0, 4.0, 6.0, 8.0]), min_size=1, max_size=2))
    a["max_size"] = [m * 2 for m in a["min_size"]][: draw(st.integers(0, len(a["min_size"])))]
    a["aspect_ratio"] = draw(st.lists(st.sampled_from([2.0, 3.0, 0.5]), max_size=2))


def _lattice(draw, a: dict) -> None:
    a["fixed_size"] = draw(st.lists(st.sampled_from([4.0, 8.0, 16.0]), min_size=1, max_size=2))
    a["density"] = [float(draw(st.integers(1, 3))) for _ in a["fixed_size"]]
    a["aspect_ratio"] = draw(st.lists(st.sampled_from([2.0, 0.5]), max_size=1))


def inputs(draw, d: Draft) -> None:
    a = d.attributes
    mode = draw(st.sampled_from(["caffe", "caffe", "lattice", "free"]))
    if mode != "free":
        for name in _EMPTIED:
            a.pop(name, None)
        (_caffe if mode == "caffe" else _lattice)(draw, a)
    t = dtypes.numpy_dtype(d.dtypes[d.port_index("output_size")])
    grid = [draw(st.integers(1, 4)), draw(st.integers(1, 4))]
    d.set_input("output_size", np.asarray(grid, np.int64).astype(t))
    step = max(1, int(a.get("step", 0.0)) or 4)
    image = [min(g * step, 120) for g in grid]  # within every integer type's range
    d.set_input("image_size", np.asarray(image, np.int64).astype(t))
