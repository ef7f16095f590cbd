"""OpenVINO AdaptiveMaxPool-8: the maximum of each adaptive window (oracle/openvino/adaptive_windows.py)
and its index in the input's spatial dimensions flattened (row-major, per (n, c) plane). NaN and
ties as ONNX's MaxPool reads them (policies `nan` and `ties`); ONNX has no adaptive pooling."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.openvino.adaptive_windows import output_size, windows

_TYPES = {"i64": np.int64, "i32": np.int32}


def window_max(block: np.ndarray, nan: str, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """(max, position in the window) of each row of a (.., K) float64 block (K >= 1 where rows exist)."""
    if block.size == 0:  # no (n, c) plane: nothing to reduce
        return np.zeros(block.shape[:-1]), np.zeros(block.shape[:-1], dtype=np.int64)
    isnan = np.isnan(block)
    with np.errstate(invalid="ignore"):
        finite_max = np.fmax.reduce(block, axis=-1)
    if nan == "propagate":
        is_nan = np.any(isnan, axis=-1)
    elif nan == "ignored":
        is_nan = np.all(isnan, axis=-1)
    else:  # the running maximum starts at the first (last) element: NaN exactly where that one is
        is_nan = isnan[..., 0] if nan == "scan_forward" else isnan[..., -1]
        is_nan |= np.all(isnan, axis=-1)
    y = np.where(is_nan, np.nan, finite_max)
    hit = np.where(is_nan[..., None], isnan, block == y[..., None])
    k = block.shape[-1]
    pick = np.argmax(hit, axis=-1) if ties == "first" else k - 1 - np.argmax(hit[..., ::-1], axis=-1)
    return y, pick


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    out = output_size(x, inputs[1])
    spatial = x.shape[2:]
    with np.errstate(invalid="ignore"):  # narrow floats' NaN widens as NaN
        w = x.astype(np.float64)
    y = np.zeros(x.shape[:2] + out, dtype=np.float64)
    index = np.zeros(x.shape[:2] + out, dtype=np.int64)
    for pos, block, start in windows(w, out):
        v, pick = window_max(block, policies["nan"], policies["ties"])
        # the window's row-major position -> coordinates -> the flat index in the spatial plane
        extent = [int(-((-(p + 1) * s) // o) - (p * s) // o) for p, s, o in zip(pos, spatial, out)]
        coords = np.unravel_index(pick, extent)
        flat = np.ravel_multi_index(tuple(c + b for c, b in zip(coords, start)), spatial)
        at = (slice(None), slice(None)) + pos
        y[at], index[at] = v, flat
    with np.errstate(over="ignore", invalid="ignore"):
        return y.astype(x.dtype), index.astype(_TYPES[attributes.get("index_element_type", "i64")])
