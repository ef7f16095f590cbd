"""ONNX GridSample (16, 20, 22): X read at the grid's points (oracle/kernels/gridsample.py).
Linear and cubic compute in float64 (complex128 for complex X) and convert once to X's type."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.oracle.kernels import gridsample
from opconform.oracle.onnx.resize import to_element_type

_MODES = {"bilinear": "linear", "bicubic": "cubic"}  # GridSample-16's names


def run(spec, inputs, attributes, policies):
    x, grid = np.asarray(inputs[0]), np.asarray(inputs[1])
    mode = _MODES.get(attributes["mode"], attributes["mode"])
    kind = dtypes.get(dtypes.name_of(x.dtype)).kind
    data = x if mode == "nearest" else x.astype(np.complex128 if kind == "complex" else np.float64)
    y = gridsample.sample(data, grid, mode, attributes["padding_mode"], bool(attributes["align_corners"]),
                          nearest_rule=policies.get("nearest_halfway", "half_even"),
                          cubic_pads_coordinate=policies.get("cubic_padding", "coordinate_and_taps") == "coordinate_and_taps",
                          coordinate_dtype=np.float32 if policies.get("coordinate_precision") == "float32" else np.float64)
    return (y if mode == "nearest" else to_element_type(y, x.dtype, policies.get("integer_result", "round_half_even")),)


def policies_in_play(spec, inputs, attributes) -> set[str]:
    mode = _MODES.get(attributes["mode"], attributes["mode"])
    out = {"coordinate_precision"}
    if mode == "nearest":
        out.add("nearest_halfway")
    if mode == "cubic" and attributes["padding_mode"] != "zeros":
        out.add("cubic_padding")
    if mode != "nearest" and dtypes.get(dtypes.name_of(np.asarray(inputs[0]).dtype)).kind in ("int", "uint"):
        out.add("integer_result")
    return {p.name for p in spec.policies} & out
