"""OpenVINO SegmentMax-16: output[k] is the maximum of the rows of data whose segment id is k, for
k below num_segments (default max(segment_ids) + 1); an empty segment holds 0 (fill_mode ZERO) or
the type's lowest value (LOWEST). NaN handling is the policy `nan`."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion
from opconform.oracle.kernels.elementwise import is_float


def _lowest(dtype: np.dtype):
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    import ml_dtypes

    return -(np.finfo(dtype).max if dtype.kind == "f" else ml_dtypes.finfo(dtype).max)


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    data, ids = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1).astype(np.int64)
    given = len(inputs) > 2 and inputs[2] is not None
    count = int(np.asarray(inputs[2]).reshape(-1)[0]) if given else (int(ids.max()) + 1 if ids.size else 0)
    fill = 0 if attributes["fill_mode"] == "ZERO" else _lowest(data.dtype)
    out = np.full((count,) + data.shape[1:], fill, dtype=data.dtype)
    pick = np.maximum if policies.get("nan", "propagate") == "propagate" or not is_float(data) else np.fmax
    with np.errstate(invalid="ignore"):
        for k in range(count):
            rows = data[ids == k]
            if rows.shape[0]:
                out[k] = pick.reduce(rows, axis=0)
    return (out,)
