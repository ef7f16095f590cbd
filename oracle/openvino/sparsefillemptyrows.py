"""OpenVINO SparseFillEmptyRows-16 (TensorFlow's SparseFillEmptyRows for 2-D sparse tensors): every
row of dense_shape without an entry gets one at [row, 0] holding default_value; the entries come
out in row-major order (rows, then columns; equal positions in input order). ONNX has no sparse
operators: the oracle is its own."""
from __future__ import annotations

import numpy as np

from opconform.model import SpecVersion


def run(spec: SpecVersion, inputs: list, attributes: dict, policies: dict) -> tuple[np.ndarray, ...]:
    values, dense_shape, indices, default = (np.asarray(a) for a in inputs)
    rows = int(dense_shape.reshape(-1)[0])
    indices = indices.reshape(-1, 2)
    empty = np.ones(rows, dtype=bool)
    empty[indices[:, 0].astype(np.int64)] = False
    filled = np.flatnonzero(empty)
    all_indices = np.concatenate([indices, np.stack([filled, np.zeros_like(filled)], axis=1).astype(indices.dtype)])
    all_values = np.concatenate([values.reshape(-1), np.full(filled.size, default.reshape(-1)[0], dtype=values.dtype)])
    order = np.lexsort((all_indices[:, 1], all_indices[:, 0]))  # stable: equal positions keep their order
    return all_indices[order].astype(indices.dtype), all_values[order], empty
