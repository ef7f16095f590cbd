"""OpenVINO SearchSorted-15: per row of the innermost dimension, the index at which each value
would be inserted into the sorted row (the leftmost such index, or the rightmost with right_mode).
Rows are answered a block at a time by one numpy.searchsorted: each element's key is (row, rank
of its value among the block's values), so the rows stay apart (a loop over rows is slow on the
document's 358,400-row example). ONNX has no such operator."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import wide

_BLOCK = 1 << 20  # elements of the sorted sequence per block: bounded temporaries


def _codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Order-preserving int64 codes of a's and b's values, and one past the largest code."""
    if a.dtype.kind in "iu" and a.dtype.itemsize <= 4:  # the values themselves, shifted to >= 0
        lo = min(int(a.min(initial=0)), int(b.min(initial=0)))
        hi = max(int(a.max(initial=0)), int(b.max(initial=0)))
        return a.astype(np.int64) - lo, b.astype(np.int64) - lo, hi - lo + 1
    levels, code = np.unique(np.concatenate([wide(a).reshape(-1), wide(b).reshape(-1)]), return_inverse=True)
    code = code.reshape(-1)
    return code[: a.size].reshape(a.shape), code[a.size:].reshape(b.shape), len(levels)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    seq, values = np.asarray(inputs[0]), np.asarray(inputs[1])
    side = "right" if attributes.get("right_mode", False) else "left"
    n = seq.shape[-1]
    if seq.ndim == 1:
        return (np.searchsorted(wide(seq), wide(values), side=side).astype(np.int64),)
    rows = int(np.prod(seq.shape[:-1], dtype=np.int64))
    s, v = seq.reshape(rows, n), values.reshape(rows, -1)
    out = np.zeros(v.shape, dtype=np.int64)
    step = max(1, _BLOCK // max(n, 1))
    for first in range(0, rows, step):
        cs, cv, span = _codes(s[first:first + step], v[first:first + step])
        row = np.arange(cs.shape[0], dtype=np.int64)[:, None]
        found = np.searchsorted((row * span + cs).reshape(-1), (row * span + cv).reshape(-1), side=side)
        out[first:first + step] = found.reshape(cv.shape) - row * n
    return (out.reshape(values.shape),)
