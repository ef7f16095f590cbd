"""OpenVINO AvgPool-16: the mean of each window (oracle/openvino/pool_windows.py geometry, the
kernel of ONNX's AveragePool, which the document names as its reference), padding counted unless
exclude-pad. Integers: the mean computed in float64, then policy `integer_average` (truncated
toward zero, or rounded half to even)."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels import pool
from opconform.oracle.openvino import pool_windows
from opconform.oracle.kernels.fp_extremes import extremes_are_data


@extremes_are_data
def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    x = np.asarray(inputs[0])
    win = pool_windows.window(x.shape[2:], attributes)
    include = not bool(attributes["exclude_pad"])
    if x.dtype.kind not in "iu":
        return (pool.average(spec.id, x, win, include, policies),)
    # the float64 kernel on exact integers (float64 holds every sum the drawn sizes make), then T
    mean = pool.average(spec.id, x.astype(np.float64), win, include, {})
    rounded = np.trunc(mean) if policies["integer_average"] == "truncate" else np.rint(mean)
    return (rounded.astype(x.dtype),)
