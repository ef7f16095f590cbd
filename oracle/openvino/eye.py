"""OpenVINO Eye-9: batch_shape + [num_rows, num_columns] zeros with output[..., i, i + diagonal_index]
= 1 wherever that column exists (numpy.eye's k), in the type output_type names."""
from __future__ import annotations

import numpy as np

from opconform import dtypes
from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    rows, cols, k = (int(np.asarray(inputs[i]).reshape(-1)[0]) for i in range(3))
    batch = tuple(int(b) for b in np.asarray(inputs[3]).reshape(-1)) if len(inputs) > 3 and inputs[3] is not None else ()
    dtype = dtypes.numpy_dtype(spec.outputs[0].type_map[attributes["output_type"]])
    matrix = np.eye(rows, cols, k, dtype=np.float64).astype(dtype)
    return (np.broadcast_to(matrix, batch + (rows, cols)).copy(),)
