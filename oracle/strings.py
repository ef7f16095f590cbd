"""String tensors at the oracle's boundary: every element a Python str, in and out.

String tensors are object arrays, and an object array can hold anything: bytes (what
onnx.numpy_helper reads back from a .pb file), or a 0-d ndarray that a NumPy operation put
there (assigning a 0-d object array to one element stores the array, not its string). Both
outputs would be written wrongly (bytes(ndarray) is the array's memory, not its text), so inputs
are decoded to str on the way in and outputs are checked on the way out.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def as_str_inputs(inputs: Sequence[Any]) -> list:
    """The inputs with bytes elements of object arrays decoded (UTF-8, as ONNX strings are)."""
    return [_decoded(x) if isinstance(x, np.ndarray) and x.dtype == object else x for x in inputs]


def _decoded(x: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1)
    if not any(isinstance(s, bytes) for s in flat):
        return x
    return np.array([s.decode("utf-8", "surrogateescape") if isinstance(s, bytes) else s for s in flat],
                    dtype=object).reshape(x.shape)


def check_outputs(spec_id: str, outputs: Sequence[np.ndarray]) -> None:
    """Raise TypeError naming the output and element when an object output holds a non-str."""
    for j, out in enumerate(outputs):
        if isinstance(out, np.ndarray) and out.dtype == object:
            for k, s in enumerate(out.reshape(-1)):
                if type(s) is not str:
                    raise TypeError(f"oracle of {spec_id}: output {j} element {k} is a {type(s).__name__}, "
                                    "expected str (a string tensor holds str elements only)")
